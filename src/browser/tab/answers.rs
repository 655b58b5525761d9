//! The requests a click caused, answered before its step ends and before an inbox step reads
//! the mail: a person reads the mail once the page has answered, not while it still works.

use super::*;
use crate::browser::facts::Answers;

/// At most this many requests are named in each list of [`Answers`].
const NAMED: usize = 3;

impl Tab {
    /// Waits until every request the page sent since `mark` (from the document it showed then)
    /// is answered (a response, a failure, a refusal), until [`ANSWER_BOUND`] after the mark or
    /// `deadline`, whichever comes first; then, when it waited for any, what for and how long.
    /// Once all are answered the page is given one task turn to read the answers, and what
    /// that sends is waited for too.
    pub(super) async fn answers_since(&self, mark: Mark, deadline: Instant) -> Option<Answers> {
        let bound = mark.at + ANSWER_BOUND;
        let until = deadline.min(bound);
        if !self.activity.sent_since(mark) || Instant::now() >= until {
            return None;
        }
        let began = Instant::now();
        let mut moves = self.activity.moves();
        let _ = tokio::time::timeout_at(until, self.activity.caught_up()).await;
        let mut waited_for: Vec<String> = Vec::new();
        let mut turned = false;
        loop {
            moves.borrow_and_update();
            let pending = self.activity.unanswered_since(mark);
            if pending.is_empty() {
                if waited_for.is_empty() || turned {
                    break;
                }
                // The page reads the answers in its next tasks, and may send more for them.
                self.count();
                let turn = tokio::time::timeout_at(until, self.page.execute(task_barrier()));
                let _ = turn.await;
                let _ = tokio::time::timeout_at(until, self.activity.caught_up()).await;
                turned = true;
                continue;
            }
            turned = false;
            for said in pending {
                if !waited_for.contains(&said) {
                    waited_for.push(said);
                }
            }
            let moved = tokio::time::timeout_at(until, moves.changed()).await;
            if !matches!(moved, Ok(Ok(()))) {
                break;
            }
        }
        if waited_for.is_empty() {
            return None;
        }
        let unanswered = self.activity.unanswered_since(mark);
        let answered = waited_for
            .into_iter()
            .filter(|s| !unanswered.contains(s))
            .collect();
        let ended = match bound <= deadline {
            true => Ended::Bound,
            false => Ended::Deadline,
        };
        Some(Answers::new(began.elapsed(), answered, unanswered, ended))
    }

    /// Before an inbox step reads the mail: the requests the last click caused are answered,
    /// as the click's own step waits for them (they usually are by now), bounded by
    /// [`ANSWER_BOUND`] from the click. What it waited for, if it did.
    pub async fn answers_to_click(&self, deadline: Instant) -> Option<Answers> {
        let mark = (*self.clicked.lock().ok()?)?;
        self.answers_since(mark, deadline).await
    }
}

/// What ended a wait that left requests unanswered.
#[derive(Clone, Copy)]
enum Ended {
    /// [`ANSWER_BOUND`]: they are taken as long-lived.
    Bound,
    /// The step's deadline came first.
    Deadline,
}

impl Answers {
    fn new(
        waited: Duration,
        answered: Vec<String>,
        unanswered: Vec<String>,
        ended: Ended,
    ) -> Answers {
        let secs = format!("{:.1} s", waited.as_secs_f64());
        let why = match ended {
            Ended::Bound => "a long poll or a stream",
            Ended::Deadline => "the step's deadline came first",
        };
        let list = |all: &[String]| {
            let mut said = all
                .iter()
                .take(NAMED)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if all.len() > NAMED {
                said.push_str(&format!(" and {} more", all.len() - NAMED));
            }
            said
        };
        let said = match (answered.is_empty(), unanswered.is_empty()) {
            (false, true) => format!("waited {secs} for {} to be answered", list(&answered)),
            (true, false) => format!(
                "waited {secs} for {} and went on without an answer ({why})",
                list(&unanswered)
            ),
            _ => format!(
                "waited {secs} for {} to be answered; {} had no answer then and the step went \
                 on without it ({why})",
                list(&answered),
                list(&unanswered)
            ),
        };
        Answers {
            waited_ms: waited.as_millis() as u64,
            answered: answered.into_iter().take(NAMED).collect(),
            unanswered: unanswered.into_iter().take(NAMED).collect(),
            said,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_says_how_long_and_what_for() {
        let post = "POST http://127.0.0.1:1/register".to_string();
        let poll = "GET http://127.0.0.1:1/poll".to_string();
        let said = |a: Vec<String>, u: Vec<String>| {
            Answers::new(Duration::from_millis(1460), a, u, Ended::Bound).said
        };
        assert_eq!(
            said(vec![post.clone()], vec![]),
            "waited 1.5 s for POST http://127.0.0.1:1/register to be answered"
        );
        assert_eq!(
            said(vec![], vec![poll.clone()]),
            "waited 1.5 s for GET http://127.0.0.1:1/poll and went on without an answer (a long \
             poll or a stream)"
        );
        assert_eq!(
            said(vec![post.clone(); 5], vec![poll]),
            format!(
                "waited 1.5 s for {post}, {post}, {post} and 2 more to be answered; GET \
                 http://127.0.0.1:1/poll had no answer then and the step went on without it (a \
                 long poll or a stream)"
            )
        );
        let cut = Answers::new(Duration::ZERO, vec![], vec![post.clone()], Ended::Deadline);
        assert!(
            cut.said
                .ends_with("went on without an answer (the step's deadline came first)"),
            "{}",
            cut.said
        );
        let kept = Answers::new(Duration::ZERO, vec![post; 5], vec![], Ended::Bound);
        assert_eq!(kept.answered.len(), 3, "the first three are named");
    }
}
