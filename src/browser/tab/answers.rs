//! The requests a click caused, answered before its step ends and before an inbox step reads
//! the mail: a person reads the mail once the page has answered, not while it still works.

use super::*;
use crate::browser::facts::Answers;

/// At most this many requests are named in each list of [`Answers`].
const NAMED: usize = 3;

impl Tab {
    /// Waits until every request the page sent since `mark` (from the document it showed then)
    /// is answered (a response, a failure, a refusal): until [`ANSWER_BOUND`] after the mark,
    /// and for a submission (not a `GET`) until `submissions` after it, or until `deadline`,
    /// whichever comes first; then, when it waited for any, what for and how long. Once all
    /// are answered the page is given one task turn to read the answers, and what that sends
    /// is waited for too.
    pub(super) async fn answers_since(
        &self,
        mark: Mark,
        deadline: Instant,
        submissions: Duration,
    ) -> Option<Answers> {
        let reads_until = deadline.min(mark.at + ANSWER_BOUND);
        let writes_until = deadline.min(mark.at + submissions.max(ANSWER_BOUND));
        if !self.activity.sent_since(mark) || Instant::now() >= writes_until {
            return None;
        }
        let began = Instant::now();
        let mut moves = self.activity.moves();
        let _ = tokio::time::timeout_at(reads_until, self.activity.caught_up()).await;
        let mut waited_for: Vec<String> = Vec::new();
        let mut turned = false;
        loop {
            moves.borrow_and_update();
            let now = Instant::now();
            // Past its bound a request is no longer waited for.
            let pending: Vec<_> = self
                .activity
                .unanswered_since(mark)
                .into_iter()
                .filter(|w| now < if w.write { writes_until } else { reads_until })
                .collect();
            if pending.is_empty() {
                if waited_for.is_empty() || turned || now >= reads_until {
                    break;
                }
                // The page reads the answers in its next tasks, and may send more for them.
                self.count();
                let turn = tokio::time::timeout_at(reads_until, self.page.execute(task_barrier()));
                let _ = turn.await;
                let _ = tokio::time::timeout_at(reads_until, self.activity.caught_up()).await;
                turned = true;
                continue;
            }
            turned = false;
            // Wake at the next bound too: a read's, to go on waiting for the submissions alone.
            let until = match pending.iter().any(|w| !w.write) {
                true => reads_until,
                false => writes_until,
            };
            for w in pending {
                if !waited_for.contains(&w.said) {
                    waited_for.push(w.said);
                }
            }
            match tokio::time::timeout_at(until, moves.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => break,
                Err(_) if until < writes_until => {}
                Err(_) => break,
            }
        }
        if waited_for.is_empty() {
            return None;
        }
        let unanswered = self.activity.unanswered_since(mark);
        // What ended the wait for what is still unanswered: its bound, or the step's deadline.
        let submission = unanswered.iter().any(|w| w.write) && submissions > ANSWER_BOUND;
        let ended = match (submission, deadline) {
            (true, d) if mark.at + submissions <= d => Ended::SubmissionBound,
            (false, d) if mark.at + ANSWER_BOUND <= d => Ended::Bound,
            _ => Ended::Deadline,
        };
        let unanswered: Vec<String> = unanswered.into_iter().map(|w| w.said).collect();
        let answered = waited_for
            .into_iter()
            .filter(|s| !unanswered.contains(s))
            .collect();
        Some(Answers::new(began.elapsed(), answered, unanswered, ended))
    }

    /// Before an inbox step reads the mail: the requests the last click caused are answered,
    /// as the click's own step waits for them (they usually are by now), bounded by
    /// [`ANSWER_BOUND`] from the click, and a submission by [`SUBMISSION_ANSWER_BOUND`]: a
    /// person reads the mail once the page has answered the form. What it waited for, if it
    /// did.
    pub async fn answers_to_click(&self, deadline: Instant) -> Option<Answers> {
        let mark = (*self.clicked.lock().ok()?)?;
        self.answers_since(mark, deadline, SUBMISSION_ANSWER_BOUND)
            .await
    }
}

/// What ended a wait that left requests unanswered.
#[derive(Clone, Copy)]
enum Ended {
    /// [`ANSWER_BOUND`]: they are taken as long-lived (a long poll, a stream).
    Bound,
    /// For a submission before the mail, [`SUBMISSION_ANSWER_BOUND`]: the site's answer is
    /// not waited for any longer.
    SubmissionBound,
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
        let slow = format!(
            "none within {} s of the click",
            SUBMISSION_ANSWER_BOUND.as_secs()
        );
        let why = match ended {
            Ended::Bound => "a long poll or a stream",
            Ended::SubmissionBound => slow.as_str(),
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
        let slow = Answers::new(
            Duration::ZERO,
            vec![],
            vec![post.clone()],
            Ended::SubmissionBound,
        );
        assert!(
            slow.said
                .ends_with("went on without an answer (none within 60 s of the click)"),
            "{}",
            slow.said
        );
        let kept = Answers::new(Duration::ZERO, vec![post; 5], vec![], Ended::Bound);
        assert_eq!(kept.answered.len(), 3, "the first three are named");
    }
}
