//! SIGINT, SIGTERM and SIGHUP all cancel the runs in flight, so a CI runner stopping a job,
//! a closed terminal and Ctrl-C each leave complete results, logs and reports. The exit code
//! then says which signal it was (128 + its number), as a shell would.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

/// Which signal cancelled the runs, once one has.
#[derive(Clone, Default)]
pub struct Interrupt {
    signal: Arc<AtomicI32>,
}

impl Interrupt {
    /// Cancels `cancel` on the first SIGINT, SIGTERM or SIGHUP; a second one ends the process
    /// at once, without reports.
    pub fn listen(cancel: CancellationToken) -> Interrupt {
        let interrupt = Interrupt::default();
        let seen = interrupt.signal.clone();
        let streams = [
            (SignalKind::interrupt(), libc::SIGINT, "Ctrl-C"),
            (SignalKind::terminate(), libc::SIGTERM, "SIGTERM"),
            (SignalKind::hangup(), libc::SIGHUP, "SIGHUP"),
        ]
        .into_iter()
        .filter_map(|(kind, number, name)| Some((signal(kind).ok()?, number, name)))
        .collect::<Vec<_>>();
        tokio::spawn(async move {
            let mut streams = streams;
            loop {
                let waits = streams.iter_mut().map(|(s, number, name)| {
                    Box::pin(async move {
                        s.recv().await;
                        (*number, *name)
                    })
                });
                let ((number, name), _, _) = futures::future::select_all(waits).await;
                if seen.load(Ordering::SeqCst) != 0 {
                    eprintln!("planlock: {name} again: stopping at once, without reports");
                    std::process::exit(128 + number);
                }
                seen.store(number, Ordering::SeqCst);
                eprintln!("planlock: cancelling ({name}); a second signal stops at once");
                cancel.cancel();
            }
        });
        interrupt
    }

    /// The exit code for the signal that cancelled the runs: 130, 143 or 129.
    pub fn exit_code(&self) -> Option<u8> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            n => Some((128 + n) as u8),
        }
    }
}
