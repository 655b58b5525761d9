//! Waiting for something to become true by looking again at a fixed period: the one loop
//! behind every wait of that kind, so each says only what it looks for, until when, and how
//! often.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

/// Looks with `check` until it finds something or `deadline` passes, `period` apart: what it
/// found, or `None` once it has looked at the deadline and found nothing.
///
/// It looks at once, and a last time at the deadline (the last pause is cut short there, so
/// a wait never outlasts its deadline by a period). A look that fails for good can end the
/// wait early by finding the failure (`T` a `Result`).
pub(crate) async fn until<T, F>(
    deadline: Instant,
    period: Duration,
    mut check: impl FnMut() -> F,
) -> Option<T>
where
    F: Future<Output = Option<T>>,
{
    let pace = Pace::new(deadline, period);
    loop {
        if let Some(found) = check().await {
            return Some(found);
        }
        if !pace.again().await {
            return None;
        }
    }
}

/// The pace of a wait whose looks keep what they saw from one to the next, or end it with
/// `?`: the loop is the caller's, each turn ending in `if !pace.again().await { … }`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pace {
    deadline: Instant,
    period: Duration,
}

impl Pace {
    pub(crate) fn new(deadline: Instant, period: Duration) -> Pace {
        Pace { deadline, period }
    }

    /// After a look that found nothing: `false` once the deadline has passed; else pauses a
    /// period, cut short at the deadline, and says to look again.
    pub(crate) async fn again(&self) -> bool {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        tokio::time::sleep(self.period.min(left)).await;
        true
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    const PERIOD: Duration = Duration::from_millis(30);

    #[tokio::test]
    async fn nothing_found_ends_at_the_deadline_after_a_last_look_there() {
        let deadline = Instant::now() + Duration::from_millis(200);
        let looks = RefCell::new(Vec::new());
        let looks = &looks;
        let found: Option<()> = until(deadline, PERIOD, move || async move {
            looks.borrow_mut().push(Instant::now());
            None
        })
        .await;
        assert_eq!(found, None);
        assert!(Instant::now() >= deadline, "ended before its deadline");
        let looks = looks.borrow();
        assert!(
            *looks.last().expect("looked") >= deadline,
            "no last look at it"
        );
        // Never more looks than the deadline leaves room for: a period apart, plus the first.
        assert!(looks.len() <= 200 / 30 + 2, "{} looks", looks.len());
    }

    #[tokio::test]
    async fn looks_are_a_period_apart() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let looks = RefCell::new(Vec::new());
        let looks = &looks;
        until(deadline, PERIOD, move || async move {
            looks.borrow_mut().push(Instant::now());
            (looks.borrow().len() == 5).then_some(())
        })
        .await
        .expect("found at the fifth look");
        let looks = looks.borrow();
        assert_eq!(looks.len(), 5);
        for pair in looks.windows(2) {
            assert!(pair[1] - pair[0] >= PERIOD, "{:?} apart", pair[1] - pair[0]);
        }
    }

    #[tokio::test]
    async fn what_is_found_early_ends_the_wait_at_once() {
        let started = Instant::now();
        let looks = RefCell::new(0);
        let looks = &looks;
        let found = until(
            started + Duration::from_secs(30),
            Duration::from_secs(10),
            || {
                *looks.borrow_mut() += 1;
                async { Some("here") }
            },
        )
        .await;
        assert_eq!((found, *looks.borrow()), (Some("here"), 1));
        assert!(started.elapsed() < Duration::from_secs(10), "it paused");
    }

    #[tokio::test]
    async fn a_deadline_already_passed_still_gets_one_look() {
        let looks = RefCell::new(0);
        let looks = &looks;
        let found = until(Instant::now(), PERIOD, || {
            *looks.borrow_mut() += 1;
            async { (*looks.borrow() > 1).then_some(()) }
        })
        .await;
        assert_eq!((found, *looks.borrow()), (None, 1));
    }

    #[tokio::test]
    async fn the_last_pause_is_cut_short_at_the_deadline() {
        let started = Instant::now();
        let pace = Pace::new(started + Duration::from_millis(50), Duration::from_secs(5));
        assert!(pace.again().await, "the deadline had not passed");
        let paused = started.elapsed();
        assert!(paused >= Duration::from_millis(50), "{paused:?}");
        assert!(paused < Duration::from_secs(5), "paused a whole period");
        assert!(!pace.again().await, "the deadline has passed");
    }
}
