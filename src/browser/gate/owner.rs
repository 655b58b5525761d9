//! Which run a paused request belongs to, and from where in it: the run's tab, a popup its
//! pages opened, or a frame of either (a worker's requests carry the frame that started it).

use std::collections::HashMap;
use std::sync::Mutex;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::page::FrameId;
use chromiumoxide::cdp::browser_protocol::target::{GetTargetInfoParams, TargetId};

use super::GuardedTabs;
use crate::browser::{BrowserError, timed};

/// Where in a run a request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// The run's own tab (its main frame).
    Tab,
    /// Another page of the run's browser context, one its pages opened: its main frame.
    Popup(TargetId),
    /// A frame of the tab or of a popup.
    Frame,
}

/// The run (by its browser context) and the place a request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Owner {
    pub context: BrowserContextId,
    pub place: Place,
}

/// What is known of a frame id.
pub(super) enum Found {
    /// One of a run's.
    Run(Owner),
    /// A page of a browser context no run holds (a remote browser's other users).
    NotOurs,
    /// Not placed: no run's page has it (a frame inside another site's frame), or the browser
    /// did not answer (`error`).
    Unknown(String),
}

/// Frames placed so far, by frame id, and each context's popups: a frame is looked up once.
#[derive(Default)]
pub(super) struct Owners {
    frames: Mutex<HashMap<String, Owner>>,
    popups: Mutex<HashMap<BrowserContextId, Vec<TargetId>>>,
}

impl Owners {
    /// Forgets a context's frames and popups (its run ended).
    pub fn forget(&self, context: &BrowserContextId) {
        if let Ok(mut frames) = self.frames.lock() {
            frames.retain(|_, o| &o.context != context);
        }
        if let Ok(mut popups) = self.popups.lock() {
            popups.remove(context);
        }
    }

    /// Places the frame `frame` a request came from.
    pub async fn find(
        &self,
        browser: &chromiumoxide::Browser,
        tabs: &GuardedTabs,
        frame: &str,
    ) -> Found {
        let tab = tabs.lock().ok().and_then(|g| {
            g.iter()
                .find(|(_, t)| t.main_frame == frame)
                .map(|(context, _)| context.clone())
        });
        if let Some(context) = tab {
            return Found::Run(Owner {
                context,
                place: Place::Tab,
            });
        }
        if let Some(known) = self.frames.lock().ok().and_then(|f| f.get(frame).cloned()) {
            return Found::Run(known);
        }
        // A page's main frame, and another site's frame in a process of its own, are targets.
        let info = timed(browser.execute(GetTargetInfoParams {
            target_id: Some(TargetId::from(frame.to_string())),
        }))
        .await;
        let found = match info {
            Ok(info) => {
                let info = &info.result.target_info;
                let ours = info
                    .browser_context_id
                    .as_ref()
                    .filter(|c| tabs.lock().is_ok_and(|g| g.contains_key(*c)));
                match (ours, info.r#type.as_str()) {
                    (Some(context), "page") => {
                        let target = TargetId::from(frame.to_string());
                        if let Ok(mut popups) = self.popups.lock() {
                            let list = popups.entry(context.clone()).or_default();
                            if !list.contains(&target) {
                                list.push(target.clone());
                            }
                        }
                        Found::Run(Owner {
                            context: context.clone(),
                            place: Place::Popup(target),
                        })
                    }
                    (Some(context), _) => Found::Run(Owner {
                        context: context.clone(),
                        place: Place::Frame,
                    }),
                    (None, _) => Found::NotOurs,
                }
            }
            Err(e) if e.to_string().contains("No target") => {
                self.in_frame_trees(browser, tabs, frame).await
            }
            Err(e) => Found::Unknown(e.to_string()),
        };
        if let Found::Run(owner) = &found
            && let Ok(mut frames) = self.frames.lock()
        {
            frames.insert(frame.to_string(), owner.clone());
        }
        found
    }

    /// A frame that is no target: a frame of one of the runs' pages, in the page's own
    /// process. The browser's connection keeps each attached page's frame tree; it is asked
    /// of every run's tab and popups.
    async fn in_frame_trees(
        &self,
        browser: &chromiumoxide::Browser,
        tabs: &GuardedTabs,
        frame: &str,
    ) -> Found {
        let pages: Vec<(BrowserContextId, chromiumoxide::Page)> = tabs
            .lock()
            .map(|g| g.iter().map(|(c, t)| (c.clone(), t.page.clone())).collect())
            .unwrap_or_default();
        let popups: Vec<(BrowserContextId, TargetId)> = self
            .popups
            .lock()
            .map(|p| {
                p.iter()
                    .flat_map(|(c, list)| list.iter().map(|t| (c.clone(), t.clone())))
                    .collect()
            })
            .unwrap_or_default();
        let id = FrameId::from(frame.to_string());
        for (context, page) in pages {
            if has_frame(&page, &id).await {
                return found_frame(context);
            }
        }
        for (context, target) in popups {
            if let Ok(page) = timed(browser.get_page(target)).await
                && has_frame(&page, &id).await
            {
                return found_frame(context);
            }
        }
        Found::Unknown("no page of this run has the frame".into())
    }
}

fn found_frame(context: BrowserContextId) -> Found {
    Found::Run(Owner {
        context,
        place: Place::Frame,
    })
}

/// Whether `frame` is a subframe of `page` (answered by the connection, no round trip to the
/// browser).
async fn has_frame(page: &chromiumoxide::Page, frame: &FrameId) -> bool {
    let parent: Result<Option<FrameId>, BrowserError> =
        timed(page.frame_parent(frame.clone())).await;
    matches!(parent, Ok(Some(_)))
}
