//! A click on the page: the element the locator chose, the input events that press it (or
//! Enter in the filled field, for an implicit submission), and what the click did.

use super::*;

impl Tab {
    /// Clicks the element found by `text` (preferred) or `selector`, with real mouse events,
    /// and watches what the click does (see [`Effect`]) for up to [`CLICK_WINDOW`] when it
    /// does not start a navigation at once. It ends once the navigation it started is
    /// committed and the requests it caused are answered (see [`ANSWER_BOUND`]).
    /// `describe` names the role a person would look for ("the Sign Up button").
    /// `filled`: the fields this run filled on the page since it was opened (their names), to
    /// recognise the form when a submission brings it back, and to say whether it was sent.
    pub async fn click(
        &self,
        describe: &str,
        text: Option<&str>,
        selector: Option<&str>,
        filled: &[String],
        deadline: Instant,
    ) -> Result<Clicked, PageError> {
        self.end_submission();
        let op = Operation::Click {
            text,
            selector,
            describe: Describe::read(describe),
        };
        let located: Located = self.locate(&op, deadline).await?;
        let (x, y) = (located.x.unwrap_or(0.0), located.y.unwrap_or(0.0));
        // Subscribe before the click, so what it starts is seen.
        let mut requested = self.events::<EventFrameRequestedNavigation>().await?;
        let mut stopped = self.events::<EventFrameStoppedLoading>().await?;
        let mut committed = self.events::<EventFrameNavigated>().await?;
        let mut sent = self.events::<EventRequestWillBeSent>().await?;
        let mut dialogs = self.events::<EventJavascriptDialogOpening>().await?;
        let mut within = self.events::<EventNavigatedWithinDocument>().await?;
        let enter = located.key.as_deref() == Some("Enter");
        // The pointer arrives first (hover menus, tooltips): what that does is not the click's.
        if !enter {
            self.mouse(DispatchMouseEventType::MouseMoved, x, y).await?;
        }
        let watched: Watched = self.locate(&Operation::Watch, deadline).await?;
        if let Ok(mut shape) = self.shape.lock() {
            *shape = watched.shape;
        }
        self.refused_before
            .store(self.activity.refused_submissions(), Ordering::Relaxed);
        let tabs_before = self.activity.popups();
        let mark = self.activity.mark();
        if let Ok(mut clicked) = self.clicked.lock() {
            *clicked = Some(mark);
        }
        let clicked_at = mark.at;
        self.start_submission();
        if enter {
            self.press_enter().await?;
        } else {
            for kind in [
                DispatchMouseEventType::MousePressed,
                DispatchMouseEventType::MouseReleased,
            ] {
                self.mouse(kind, x, y).await?;
            }
        }
        let main = self.page.target_id().inner().clone();
        // A form submission or script navigation is reported after the mouse event's reply.
        self.count();
        let _ = tokio::time::timeout(CDP_TIMEOUT, self.page.execute(task_barrier())).await;
        let mut effect = Effect::default();
        let mut navigation = None;
        let mut submission = false;
        let mut navigated = |ev: &EventFrameRequestedNavigation, effect: &mut Effect| {
            if ev.frame_id.inner() != &main {
                return None;
            }
            if matches!(
                ev.reason,
                ClientNavigationReason::FormSubmissionGet
                    | ClientNavigationReason::FormSubmissionPost
            ) {
                submission = true;
            }
            effect.navigated(ev.url.clone(), false);
            Some(ev.url.clone())
        };
        while let Some(Some(ev)) = requested.now_or_never_ready() {
            navigation = navigated(&ev, &mut effect).or(navigation);
        }
        let submits = located
            .chosen
            .as_ref()
            .is_some_and(|c| c.submits == Some(true));
        if navigation.is_none() && submits {
            // No navigation: perhaps the browser refused to send the form. Said at once, with
            // each field and the browser's message, as a person sees them pop up.
            let sent: FormCheck = self.locate(&Operation::Sent, deadline).await?;
            if !sent.invalid.is_empty() {
                return Err(PageError::FormNotSent {
                    element: located.element.clone().unwrap_or_default(),
                    fields: sent.invalid,
                });
            }
        }
        if navigation.is_none() {
            // What else it did: the first sign within the window ends the watch, since any one
            // is the click's evidence; a page-side change is then read as it stands.
            let window_ends = deadline.min(clicked_at + CLICK_WINDOW);
            let page_side = self.locate::<PageEffect>(&Operation::Effect, window_ends);
            let browser_side = async {
                let mut tick = tokio::time::interval(Duration::from_millis(20));
                loop {
                    tokio::select! {
                        ev = requested.next() => if let Some(ev) = ev
                            && let Some(url) = navigated(&ev, &mut effect)
                        {
                            navigation = Some(url);
                            return;
                        },
                        ev = sent.next() => if let Some(ev) = ev
                            && let Some(request) = page_request(&ev, &main)
                        {
                            effect.requested(request);
                            return;
                        },
                        ev = dialogs.next() => if let Some(ev) = ev {
                            // Answered by the tab as it opened (`dialogs.rs`): recorded with how.
                            effect.dialog(super::super::dialogs::said(&ev));
                            return;
                        },
                        ev = within.next() => if let Some(ev) = ev
                            && ev.frame_id.inner() == &main
                        {
                            effect.navigated(ev.url.clone(), true);
                            return;
                        },
                        _ = tick.tick() => if self.activity.popups() != tabs_before {
                            effect.new_tab();
                            return;
                        },
                    }
                }
            };
            let page = tokio::select! {
                page = page_side => Some(page),
                _ = tokio::time::timeout_at(window_ends, browser_side) => None,
            };
            let page = match page {
                Some(page) => page,
                // Something else was first (or nothing came): the page's side as it stands. A
                // dialog holds the page until it is answered, so it is not asked then.
                None if effect.dialog.is_none() && navigation.is_none() => {
                    self.locate::<PageEffect>(&Operation::Effect, Instant::now())
                        .await
                }
                None => Err(PageError::PageClosed),
            };
            let page = match page {
                Ok(page) => Some(page),
                // The lock refused where the click went, or the browser went away: that is
                // what the click did.
                Err(e @ (PageError::Refused(_) | PageError::BrowserGone { .. })) => return Err(e),
                Err(_) => None,
            };
            if let Some(page) = page {
                effect.add_page(page);
            }
            // Requests and a same-document navigation that came with a change of the page.
            while let Some(Some(ev)) = sent.now_or_never_ready() {
                if let Some(request) = page_request(&ev, &main) {
                    effect.requested(request);
                }
            }
            while let Some(Some(ev)) = within.now_or_never_ready() {
                if ev.frame_id.inner() == &main {
                    effect.navigated(ev.url.clone(), true);
                }
            }
            if effect.is_none() {
                effect.watched_ms = Some(clicked_at.elapsed().as_millis() as u64);
            }
        }
        if effect.after_ms.is_none() && !effect.is_none() {
            effect.after_ms = Some((clicked_at.elapsed().as_secs_f64() * 1000.0).round());
        }
        if navigation.is_some() {
            // A click that starts a top-level navigation waits until the new document is
            // committed (or the load ended without one, e.g. refused or a download), so the next
            // step never acts on the page being left.
            let settled = async {
                loop {
                    tokio::select! {
                        ev = committed.next() => match ev {
                            Some(ev) if ev.frame.parent_id.is_none() => break,
                            Some(_) => {}
                            None => break,
                        },
                        ev = stopped.next() => match ev {
                            Some(ev) if ev.frame_id.inner() == &main => break,
                            Some(_) => {}
                            None => break,
                        },
                    }
                }
            };
            let settle_by = deadline.min(Instant::now() + NAVIGATION_SETTLE);
            self.wait_until(settle_by, settled).await?;
        }
        // What the click caused is answered before the step ends: the next one judges the page,
        // or reads the mail, once the page has answered, as a person does.
        effect.answers = self.answers_since(mark, deadline).await;
        if let Some(e) = self.refused() {
            return Err(e);
        }
        if !filled.is_empty() {
            // The form this run filled: sent by a submission (of a form, or a navigation the
            // browser made for one), a request the page made, or taken in by the page; not by
            // a link or script that left it.
            let sent = submission
                || effect.sent == Some(true)
                || effect.did(EffectKind::Submission)
                || effect.did(EffectKind::Request);
            effect.sent = Some(sent);
        }
        let mut clicked = Clicked {
            located,
            effect,
            navigation,
            form_errors: Vec::new(),
            form_back: false,
        };
        if submits || clicked.effect.sent == Some(true) {
            // What the page says about the form once it is back (a server that re-rendered it
            // with errors); a later wait is cut short by it.
            let by = deadline.min(Instant::now() + NAVIGATION_SETTLE);
            if let Ok(page) = self.form_errors(filled, by).await {
                clicked.form_errors = page.errors;
                clicked.form_back = page.form_back;
            }
            if let Some(e) = self.refused() {
                return Err(e);
            }
        }
        Ok(clicked)
    }

    /// Enter, pressed and released in the focused field.
    async fn press_enter(&self) -> Result<(), PageError> {
        for kind in [DispatchKeyEventType::KeyDown, DispatchKeyEventType::KeyUp] {
            let mut ev = DispatchKeyEventParams::builder()
                .r#type(kind.clone())
                .key("Enter")
                .code("Enter")
                .windows_virtual_key_code(13)
                .native_virtual_key_code(13);
            if kind == DispatchKeyEventType::KeyDown {
                ev = ev.text("\r");
            }
            self.input(ev.build().map_err(PageError::Command)?).await?;
        }
        Ok(())
    }

    /// One mouse event at `(x, y)` with the left button.
    async fn mouse(&self, kind: DispatchMouseEventType, x: f64, y: f64) -> Result<(), PageError> {
        let mut ev = DispatchMouseEventParams::builder()
            .r#type(kind.clone())
            .x(x)
            .y(y);
        if kind != DispatchMouseEventType::MouseMoved {
            ev = ev.button(MouseButton::Left).click_count(1);
        }
        self.input(ev.build().map_err(PageError::Command)?).await
    }

    /// Sends one input event (a key, the mouse) to the page.
    async fn input<C: chromiumoxide::Command>(&self, event: C) -> Result<(), PageError> {
        self.count();
        timed(self.page.execute(event))
            .await
            .map_err(|e| self.cdp_failure(e))?;
        Ok(())
    }
}
