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
        // Subscribe before the click, so what it starts is seen.
        let mut signs = self.signs().await?;
        let pressed = self.press(&located, deadline).await?;
        let clicked_at = pressed.mark.at;
        let mut seen = Seen {
            main: self.page.target_id().inner().clone(),
            ..Seen::default()
        };
        // A form submission or script navigation is reported after the mouse event's reply.
        self.count();
        let _ = tokio::time::timeout(CDP_TIMEOUT, self.page.execute(task_barrier())).await;
        while let Some(Some(ev)) = signs.requested.now_or_never_ready() {
            seen.navigation_requested(&ev);
        }
        let submits = located
            .chosen
            .as_ref()
            .is_some_and(|c| c.submits == Some(true));
        if seen.navigation.is_none() && submits {
            self.browser_sent(&located, deadline).await?;
        }
        if seen.navigation.is_none() {
            self.watch(&mut seen, &mut signs, &pressed, deadline)
                .await?;
        }
        let (mut effect, navigation) = (seen.effect, seen.navigation);
        if effect.after_ms.is_none() && !effect.is_none() {
            effect.after_ms = Some((clicked_at.elapsed().as_secs_f64() * 1000.0).round());
        }
        if navigation.is_some() {
            self.committed(&mut signs, &seen.main, deadline).await?;
        }
        // What the click caused is answered before the step ends: the next one judges the page,
        // or reads the mail, once the page has answered, as a person does.
        effect.answers = self
            .answers_since(pressed.mark, deadline, ANSWER_BOUND)
            .await;
        if let Some(e) = self.refused() {
            return Err(e);
        }
        if !filled.is_empty() {
            effect.sent = Some(form_sent(&effect, seen.submission));
        }
        let mut clicked = Clicked {
            located,
            effect,
            navigation,
            form_errors: Vec::new(),
            form_back: false,
        };
        if submits || clicked.effect.sent == Some(true) {
            self.form_back(&mut clicked, filled, deadline).await?;
        }
        Ok(clicked)
    }

    /// The page's events a click is judged by, subscribed to before it.
    async fn signs(&self) -> Result<Signs, PageError> {
        Ok(Signs {
            requested: self.events().await?,
            stopped: self.events().await?,
            committed: self.events().await?,
            sent: self.events().await?,
            dialogs: self.events().await?,
            within: self.events().await?,
        })
    }

    /// The pointer to the element and the press (or Enter, in the filled field), after the
    /// page's state before it is taken: its shape, its refused submissions, its tabs.
    async fn press(&self, located: &Located, deadline: Instant) -> Result<Pressed, PageError> {
        let (x, y) = (located.x.unwrap_or(0.0), located.y.unwrap_or(0.0));
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
        Ok(Pressed { mark, tabs_before })
    }

    /// A submit control clicked and no navigation: perhaps the browser refused to send the
    /// form. Said at once, with each field and the browser's message, as a person sees them
    /// pop up.
    async fn browser_sent(&self, located: &Located, deadline: Instant) -> Result<(), PageError> {
        let sent: FormCheck = self.locate(&Operation::Sent, deadline).await?;
        if !sent.invalid.is_empty() {
            return Err(PageError::FormNotSent {
                element: located.element.clone().unwrap_or_default(),
                fields: sent.invalid,
            });
        }
        Ok(())
    }

    /// A click that started no navigation at once: what else it did. The first sign within the
    /// window ends the watch, since any one is the click's evidence; a page-side change is then
    /// read as it stands.
    async fn watch(
        &self,
        seen: &mut Seen,
        signs: &mut Signs,
        pressed: &Pressed,
        deadline: Instant,
    ) -> Result<(), PageError> {
        let clicked_at = pressed.mark.at;
        let window_ends = deadline.min(clicked_at + CLICK_WINDOW);
        let page_side = self.locate::<PageEffect>(&Operation::Effect, window_ends);
        let browser_side = self.browser_sign(seen, signs, pressed.tabs_before);
        let page = tokio::select! {
            page = page_side => Some(page),
            _ = tokio::time::timeout_at(window_ends, browser_side) => None,
        };
        let page = match page {
            Some(page) => page,
            // Something else was first (or nothing came): the page's side as it stands. A
            // dialog holds the page until it is answered, so it is not asked then.
            None if seen.effect.dialog.is_none() && seen.navigation.is_none() => {
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
        let effect = &mut seen.effect;
        if let Some(page) = page {
            effect.add_page(page);
        }
        // Requests and a same-document navigation that came with a change of the page.
        while let Some(Some(ev)) = signs.sent.now_or_never_ready() {
            if let Some(request) = page_request(&ev, &seen.main) {
                effect.requested(request);
            }
        }
        while let Some(Some(ev)) = signs.within.now_or_never_ready() {
            if ev.frame_id.inner() == &seen.main {
                effect.navigated(ev.url.clone(), true);
            }
        }
        if effect.is_none() {
            effect.watched_ms = Some(clicked_at.elapsed().as_millis() as u64);
        }
        Ok(())
    }

    /// The first sign the browser gives of what a click did: a navigation of the tab, a
    /// request of the page, a dialog, a same-document navigation, a new tab.
    async fn browser_sign(&self, seen: &mut Seen, signs: &mut Signs, tabs_before: u64) {
        let main = seen.main.clone();
        let mut tick = tokio::time::interval(Duration::from_millis(20));
        loop {
            tokio::select! {
                ev = signs.requested.next() => if let Some(ev) = ev
                    && seen.navigation_requested(&ev)
                {
                    return;
                },
                ev = signs.sent.next() => if let Some(ev) = ev
                    && let Some(request) = page_request(&ev, &main)
                {
                    seen.effect.requested(request);
                    return;
                },
                ev = signs.dialogs.next() => if let Some(ev) = ev {
                    // Answered by the tab as it opened (`dialogs.rs`): recorded with how.
                    seen.effect.dialog(super::super::dialogs::said(&ev));
                    return;
                },
                ev = signs.within.next() => if let Some(ev) = ev
                    && ev.frame_id.inner() == &main
                {
                    seen.effect.navigated(ev.url.clone(), true);
                    return;
                },
                _ = tick.tick() => if self.activity.popups() != tabs_before {
                    seen.effect.new_tab();
                    return;
                },
            }
        }
    }

    /// A click that starts a top-level navigation waits until the new document is committed
    /// (or the load ended without one, e.g. refused or a download), so the next step never acts
    /// on the page being left.
    async fn committed(
        &self,
        signs: &mut Signs,
        main: &str,
        deadline: Instant,
    ) -> Result<(), PageError> {
        let settled = async {
            loop {
                tokio::select! {
                    ev = signs.committed.next() => match ev {
                        Some(ev) if ev.frame.parent_id.is_none() => break,
                        Some(_) => {}
                        None => break,
                    },
                    ev = signs.stopped.next() => match ev {
                        Some(ev) if ev.frame_id.inner() == main => break,
                        Some(_) => {}
                        None => break,
                    },
                }
            }
        };
        let settle_by = deadline.min(Instant::now() + NAVIGATION_SETTLE);
        self.wait_until(settle_by, settled).await?;
        Ok(())
    }

    /// What the page says about the form once it is back (a server that re-rendered it with
    /// errors); a later wait is cut short by it.
    async fn form_back(
        &self,
        clicked: &mut Clicked,
        filled: &[String],
        deadline: Instant,
    ) -> Result<(), PageError> {
        let by = deadline.min(Instant::now() + NAVIGATION_SETTLE);
        if let Ok(page) = self.form_errors(filled, by).await {
            clicked.form_errors = page.errors;
            clicked.form_back = page.form_back;
        }
        match self.refused() {
            Some(e) => Err(e),
            None => Ok(()),
        }
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

/// The page's events a click is judged by.
struct Signs {
    requested: EventStream<EventFrameRequestedNavigation>,
    stopped: EventStream<EventFrameStoppedLoading>,
    committed: EventStream<EventFrameNavigated>,
    sent: EventStream<EventRequestWillBeSent>,
    dialogs: EventStream<EventJavascriptDialogOpening>,
    within: EventStream<EventNavigatedWithinDocument>,
}

/// The moment of a click's press, and the tabs the page had opened before it.
struct Pressed {
    mark: Mark,
    tabs_before: u64,
}

/// What a click did, as it is seen.
#[derive(Default)]
struct Seen {
    effect: Effect,
    /// Where the tab's navigation goes, if the click started one.
    navigation: Option<String>,
    /// The navigation is a form's submission.
    submission: bool,
    /// The tab's own main frame.
    main: String,
}

impl Seen {
    /// A navigation the page asked for: the click's when it is the tab's own frame's.
    fn navigation_requested(&mut self, ev: &EventFrameRequestedNavigation) -> bool {
        if ev.frame_id.inner() != &self.main {
            return false;
        }
        if matches!(
            ev.reason,
            ClientNavigationReason::FormSubmissionGet | ClientNavigationReason::FormSubmissionPost
        ) {
            self.submission = true;
        }
        self.effect.navigated(ev.url.clone(), false);
        self.navigation = Some(ev.url.clone());
        true
    }
}

/// Whether the form this run filled was sent: by a submission (of a form, or a navigation the
/// browser made for one), a request the page made, or taken in by the page; not by a link or
/// script that left it.
fn form_sent(effect: &Effect, submission: bool) -> bool {
    submission
        || effect.sent == Some(true)
        || effect.did(EffectKind::Submission)
        || effect.did(EffectKind::Request)
}
