//! The run half: from a run spec — a locked request's ([`LockedRequest::run`]) or a replayed
//! plan's — to a run ready to start. Every front end takes the same steps in the same order:
//!
//! 1. [`lock_run`]: the secrets loaded, the lock fixed (the request's, or the plan's
//!    `navigate` URLs and allowed hosts), the inboxes bound inside that lock by the front
//!    end's [`BindInboxes`] (which judges every other side destination by it too), and the
//!    run locked;
//! 2. [`ready`]: the inboxes reachable and the browser ready, both at once;
//! 3. the front end starts it: the command line with [`runner::run`](crate::runner::run),
//!    a service through its queue.
//!
//! [`LockedRequest::run`]: super::LockedRequest::run

use std::future::Future;

use crate::inbox::binding::BindInboxes;
use crate::inbox::{Inbox, InboxError};
use crate::runner::{Binding, LockedRun, RunSpec, Secrets, SpecError};

/// Why a run could not be locked: the request (the front end words it), or an inbox its
/// binder could not bind.
#[derive(Debug)]
pub enum Unlocked<E> {
    /// The request cannot become a run.
    Spec(SpecError),
    /// The front end's binder refused or could not bind an inbox.
    Binding(E),
}

/// Locks `spec` with `secrets`: its lock fixed first, then its inboxes bound inside that
/// lock by `binder`, then every step checked against what is bound. Nothing is read yet.
pub async fn lock_run<B: BindInboxes>(
    spec: RunSpec,
    secrets: Secrets,
    binder: &B,
) -> Result<LockedRun, Unlocked<B::Error>> {
    let (spec, lock) = spec
        .secrets(secrets)
        .fix_lock()
        .await
        .map_err(Unlocked::Spec)?;
    let inboxes = binder.bind(&lock).await.map_err(Unlocked::Binding)?;
    spec.inboxes(inboxes).lock().await.map_err(Unlocked::Spec)
}

/// Checks that every inbox can be reached and logged into while the browser gets ready.
/// When an inbox cannot be, its error (said by `unreachable`), and the browser if it was
/// had, for the caller to release.
pub async fn ready<Br, E>(
    inboxes: &[Binding],
    unreachable: impl Fn(&dyn Inbox, InboxError) -> E,
    browser: impl Future<Output = Result<Br, E>>,
) -> Result<Br, (E, Option<Br>)> {
    let checked = async {
        for (_, inbox) in inboxes {
            inbox
                .check()
                .await
                .map_err(|e| unreachable(inbox.as_ref(), e))?;
        }
        Ok(())
    };
    let (checked, browser) = tokio::join!(checked, browser);
    match (checked, browser) {
        (Ok(()), Ok(browser)) => Ok(browser),
        (Err(e), browser) => Err((e, browser.ok())),
        (Ok(()), Err(e)) => Err((e, None)),
    }
}
