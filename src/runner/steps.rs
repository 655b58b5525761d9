//! What each step type does: the browser actions through the run's tab, the inbox steps
//! through its mailboxes, and the facts each one records.

use std::future::Future;
use std::time::Duration;

use chrono::SecondsFormat;
use tokio::time::Instant;

use super::failure::form_error_phrase;
use super::{EmailSeen, Failure, Previous, PreviousAction, Run, StepDetail};
use crate::browser::{Answers, Candidate, Effect, EffectKind, Located, PageError, Tab};
use crate::inbox::extract;
use crate::inbox::wait::{MailFilter, Taken, wait_for_message};
use crate::plan::{Criticality, Step};
use crate::wait;

/// How long a wait after a submitted form watches for the form coming back with errors.
const FORM_WATCH: Duration = Duration::from_secs(4);
/// How long an inbox step reads its mailbox once more, when the page says the form came back,
/// before it believes the page: a mail already there wins.
const MAIL_READ: Duration = Duration::from_secs(2);

impl Run<'_> {
    /// Runs one step; a wait that runs out is explained by the browser step before it.
    pub(super) async fn step(
        &mut self,
        tab: &Tab,
        index: usize,
        step: &Step,
        deadline: Instant,
    ) -> Result<StepDetail, Failure> {
        let at = At {
            tab,
            index,
            deadline,
            waited: deadline.saturating_duration_since(Instant::now()),
        };
        // The navigation an emailed link started, and whatever the page does on its own after
        // it, is judged by where it leads until the run acts again.
        if step.kind().acts_on_page() {
            tab.judge_hops(None);
        }
        match step {
            Step::Navigate { url, .. } => self.navigate(at, url).await,
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => {
                let target = (text.as_deref(), selector.as_deref());
                self.click(at, describe, target).await
            }
            Step::Fill {
                describe,
                label,
                selector,
                value,
                ..
            } => {
                let target = (label.as_deref(), selector.as_deref());
                self.fill(at, describe, target, value).await
            }
            Step::WaitSeconds { seconds, .. } => Ok(wait_seconds(*seconds).await),
            Step::WaitForText { text, .. } => {
                self.wait_for_text(at, text, step.criticality()).await
            }
            Step::ExtractText { selector, .. } => extract_text(at, selector.as_deref()).await,
            Step::Done { summary, .. } => self.done(at, summary).await,
            Step::WaitForEmail {
                inbox_id,
                from,
                subject,
                ..
            } => {
                let filter = mail_filter(from, subject);
                self.wait_for_email(at, inbox_id, filter).await
            }
            Step::UseOtpFromInbox {
                inbox_id, selector, ..
            } => self.use_otp_from_inbox(at, inbox_id, selector).await,
            Step::OpenLinkFromInbox {
                inbox_id,
                from,
                describe,
                ..
            } => {
                let filter = mail_filter(from, &None);
                let describe = describe.as_deref();
                self.open_link_from_inbox(at, inbox_id, filter, describe)
                    .await
            }
        }
    }

    async fn navigate(&mut self, at: At<'_>, url: &str) -> Result<StepDetail, Failure> {
        let nav = at.tab.navigate(url, at.deadline).await.map_err(at.page())?;
        self.opened(at.index, &nav.url);
        Ok(StepDetail {
            url: Some(nav.url),
            status: nav.status,
            same_document: nav.same_document.then_some(true),
            ..StepDetail::default()
        })
    }

    /// The plan's end, once what it needs is done (see [`Run::unfinished`]).
    async fn done(&mut self, at: At<'_>, summary: &str) -> Result<StepDetail, Failure> {
        if let Some(failure) = self.unfinished(at.tab, at.deadline).await {
            return Err(failure);
        }
        Ok(StepDetail {
            summary: Some(summary.to_string()),
            ..StepDetail::default()
        })
    }

    /// Clicks what `(text, selector)` finds; a click that did nothing fails, with its facts.
    async fn click(
        &mut self,
        at: At<'_>,
        describe: &str,
        (text, selector): (Option<&str>, Option<&str>),
    ) -> Result<StepDetail, Failure> {
        let tab = at.tab;
        let clicked = tab
            .click(describe, text, selector, &self.filled_fields, at.deadline)
            .await
            .map_err(at.page())?;
        let element = clicked.located.chosen.clone().or_else(|| {
            Some(Candidate {
                element: clicked.located.element.clone(),
                text: text.map(str::to_string),
                ..Candidate::default()
            })
        });
        if clicked.effect.sent == Some(true) {
            self.unsent.clear();
        }
        let form_errors: Vec<String> = clicked.form_errors.iter().map(form_error_phrase).collect();
        let filled = std::mem::take(&mut self.filled);
        self.previous = Some(Previous {
            step: at.index,
            action: PreviousAction::Clicked {
                element,
                described: Some(describe.to_string()),
                navigated: clicked.navigation.is_some(),
                effect: Some(Box::new(clicked.effect.clone())),
                came_back: if clicked.form_back {
                    form_errors.clone()
                } else {
                    Vec::new()
                },
            },
            url: Some(tab.url().await),
            filled: filled.clone(),
        });
        if clicked.effect.is_none() {
            return Err(Failure::NoEffect {
                located: Box::new(clicked.located),
                effect: Box::new(clicked.effect),
                filled,
            });
        }
        Ok(StepDetail {
            navigation: clicked.navigation,
            form_errors,
            effect: Some(clicked.effect),
            ..StepDetail::located(clicked.located)
        })
    }

    /// Types `value` into what `(label, selector)` finds.
    async fn fill(
        &mut self,
        at: At<'_>,
        describe: &str,
        (label, selector): (Option<&str>, Option<&str>),
        value: &str,
    ) -> Result<StepDetail, Failure> {
        let secret = self.masker.mask(value) != *value;
        let filled = at
            .tab
            .fill(describe, label, selector, value, secret, at.deadline)
            .await
            .map_err(at.page())?;
        self.filled_at(at.index, filled.field, at.tab.page_requests());
        Ok(StepDetail::located(filled.located))
    }

    /// Waits for `text`, cut short when the form the last click sent comes back with errors.
    async fn wait_for_text(
        &mut self,
        at: At<'_>,
        text: &str,
        criticality: Criticality,
    ) -> Result<StepDetail, Failure> {
        let (tab, deadline) = (at.tab, at.deadline);
        // A guessed check ends once the page has gone quiet without showing it.
        let waited = async {
            if criticality == Criticality::Could {
                tab.wait_for_guessed_text(text, deadline, Instant::now())
                    .await
            } else {
                tab.wait_for_text(text, deadline).await
            }
        };
        let cut_short = self.form_came_back(tab);
        tokio::select! {
            r = waited => r.map_err(|e| at.page()(e).after(self.previous.clone()))?,
            errors = cut_short => return Err(self.form_errors(errors)),
        }
        Ok(StepDetail::text(text.to_string()))
    }

    async fn wait_for_email(
        &mut self,
        at: At<'_>,
        inbox_id: &Option<String>,
        filter: MailFilter,
    ) -> Result<StepDetail, Failure> {
        let answers = self.answers_to_click(at.tab, at.deadline).await;
        let taken = self
            .message_unless_form_back(at.tab, inbox_id, &filter, at.deadline, Mail::Next)
            .await?;
        let email = email_seen(&taken);
        self.remembered.insert(inbox_id.clone(), taken);
        Ok(StepDetail::mail(email, answers))
    }

    /// Types the code of the inbox's mail into `selector`; no screenshot shows it from then on.
    async fn use_otp_from_inbox(
        &mut self,
        at: At<'_>,
        inbox_id: &Option<String>,
        selector: &str,
    ) -> Result<StepDetail, Failure> {
        let (tab, deadline) = (at.tab, at.deadline);
        let any = MailFilter::default();
        let answers = self.answers_to_click(tab, deadline).await;
        let taken = self
            .message_unless_form_back(tab, inbox_id, &any, deadline, Mail::Remembered)
            .await?;
        let msg = &taken.message;
        let address = self.address_of(inbox_id);
        let otp = extract::find_otp(&msg.raw, &address)
            .map_err(|e| Failure::code_not_taken(e, msg.subject.clone(), msg.from.clone()))?;
        // From now on no screenshot shows it, as typed or as the mail wrote it.
        for shown in [&otp.code, &otp.compact] {
            if !self.never_shown.contains(shown) {
                self.never_shown.push(shown.clone());
            }
        }
        let filled = tab
            .fill_code(selector, &otp.code, deadline)
            .await
            .map_err(at.page())?;
        self.filled_at(at.index, filled.field, tab.page_requests());
        Ok(StepDetail {
            located: Some(filled.located),
            code: Some(extract::mask_code(&otp.code)),
            chosen_by: extract::worded(&otp.reasons),
            ..StepDetail::mail(email_seen(&taken), answers)
        })
    }

    /// Opens the link of the inbox's mail that the lock lets the run open, `describe` choosing
    /// among several; its hops are judged by where they lead.
    async fn open_link_from_inbox(
        &mut self,
        at: At<'_>,
        inbox_id: &Option<String>,
        filter: MailFilter,
        describe: Option<&str>,
    ) -> Result<StepDetail, Failure> {
        let (tab, deadline) = (at.tab, at.deadline);
        let answers = self.answers_to_click(tab, deadline).await;
        let taken = self
            .message_unless_form_back(tab, inbox_id, &filter, deadline, Mail::Remembered)
            .await?;
        let msg = &taken.message;
        let lock = tab.lock();
        let link = extract::find_link(&msg.raw, describe, &|u| lock.check(u).is_ok())
            .map_err(|e| Failure::link_not_taken(e, lock, msg.subject.clone(), msg.from.clone()))?;
        tab.judge_hops(Some(std::sync::Arc::new(extract::undoing_destination)));
        let nav = tab
            .navigate(link.url.as_str(), deadline)
            .await
            .map_err(at.page())?;
        self.opened(at.index, &nav.url);
        Ok(StepDetail {
            url: Some(nav.url),
            status: nav.status,
            link: Some(link.url.to_string()),
            anchor_text: Some(link.anchor_text),
            chosen_by: extract::worded(&link.reasons),
            describe_matched: link.described,
            ..StepDetail::mail(email_seen(&taken), answers)
        })
    }

    /// Right after a click: the requests it caused are answered before the mail is read, as
    /// a person reads it once the page has answered (the click's own step waited for them;
    /// what it left unanswered within its bound is not waited for again).
    fn answers_to_click<'t>(
        &self,
        tab: &'t Tab,
        deadline: Instant,
    ) -> impl Future<Output = Option<Answers>> + 't {
        let clicked = matches!(
            &self.previous,
            Some(Previous {
                action: PreviousAction::Clicked { .. },
                ..
            })
        );
        async move {
            match clicked {
                true => tab.answers_to_click(deadline).await,
                false => None,
            }
        }
    }

    /// A page was opened: earlier fills belonged to the page left behind.
    fn opened(&mut self, index: usize, url: &str) {
        self.filled.clear();
        self.filled_fields.clear();
        self.unsent.clear();
        self.previous = Some(Previous {
            step: index,
            action: PreviousAction::Opened,
            url: Some(url.to_string()),
            filled: Vec::new(),
        });
    }

    /// A fill step typed into `field`, when the page had sent `requests` requests.
    fn filled_at(&mut self, index: usize, field: Option<String>, requests: u64) {
        self.filled.push(index);
        self.unsent.push(index);
        self.requests_at_fill = requests;
        self.filled_fields.extend(field);
        self.previous = Some(Previous {
            step: index,
            action: PreviousAction::Filled,
            url: None,
            filled: self.filled.clone(),
        });
    }

    /// After a click that submitted a form: resolves with the page's error texts if, within
    /// a few seconds, the page shows the form again with errors about it (a server that
    /// re-rendered it, a script that marked fields invalid). Never resolves otherwise, so a
    /// wait after a form that was refused ends at once rather than at its deadline.
    fn form_came_back<'t>(&self, tab: &'t Tab) -> impl Future<Output = Vec<String>> + 't {
        let submitted = matches!(
            &self.previous,
            Some(Previous { action: PreviousAction::Clicked { element, effect, .. }, .. })
                if element.as_ref().is_some_and(|e| e.submits == Some(true))
                    || effect.as_ref().is_some_and(|e| e.sent == Some(true))
        );
        // Fields filled on the page the form was on (a click keeps them; opening a page does not).
        let filled = self.filled_fields.clone();
        async move {
            if submitted && !filled.is_empty() {
                let until = Instant::now() + FORM_WATCH;
                let filled = &filled;
                let came_back =
                    wait::until(until, Duration::from_millis(400), move || async move {
                        let by = Instant::now() + Duration::from_millis(800);
                        let page = tab.form_errors(filled, by).await.ok()?;
                        (page.form_back && !page.errors.is_empty())
                            .then(|| page.errors.iter().map(form_error_phrase).collect())
                    });
                if let Some(errors) = came_back.await {
                    return errors;
                }
            }
            std::future::pending().await
        }
    }

    /// The last browser action, when it did not do what the plan needs: a click that did
    /// nothing, one after which the form this run filled stayed unsent (a link, a script, a
    /// change of the page that sent nothing), or a submission the page answered with the same
    /// form and errors. A check that fails right after it cannot be let pass.
    pub(super) fn doubt(&self) -> Option<&Previous> {
        let p = self.previous.as_ref()?;
        let PreviousAction::Clicked {
            effect, came_back, ..
        } = &p.action
        else {
            return None;
        };
        let nothing = effect.as_deref().is_some_and(Effect::is_none);
        let unsent =
            !self.unsent.is_empty() && effect.as_ref().is_some_and(|e| e.sent == Some(false));
        (nothing || unsent || !came_back.is_empty()).then_some(p)
    }

    /// Why a run that reached its end has not done what its plan needs, if it has not: the
    /// form its last submission sent came back with errors, or a form it filled is still on
    /// the page, never sent.
    pub(super) async fn unfinished(&mut self, tab: &Tab, deadline: Instant) -> Option<Failure> {
        if let Some(Previous {
            action: PreviousAction::Clicked { came_back, .. },
            ..
        }) = &self.previous
            && !came_back.is_empty()
        {
            return Some(self.form_errors(came_back.clone()));
        }
        // A submission the page answered only by asking (a modal dialog; nothing sent, nowhere
        // gone), still asking at the end: what the form was for was never confirmed.
        if let Some(
            p @ Previous {
                action:
                    PreviousAction::Clicked {
                        effect: Some(effect),
                        ..
                    },
                ..
            },
        ) = &self.previous
            && effect.did(EffectKind::Submission)
            && ![
                EffectKind::Navigation,
                EffectKind::SameDocument,
                EffectKind::NewTab,
                EffectKind::Dialog,
                EffectKind::Request,
            ]
            .into_iter()
            .any(|kind| effect.did(kind))
        {
            // As below: the margin is for a machine under load, not for the page.
            let by = deadline.min(Instant::now() + Duration::from_secs(10));
            if let Some(question) = tab.asking(by).await {
                return Some(Failure::Unanswered {
                    question,
                    previous: Box::new(p.clone()),
                });
            }
        }
        // A request the page sent after the last fill took it somewhere (a form sent by
        // script as its last box is typed).
        if self.unsent.is_empty() || tab.page_requests() > self.requests_at_fill {
            return None;
        }
        // The page answers in milliseconds; the margin is for a machine under load, where a
        // look that ran out of time would let an unsent form pass as sent.
        let by = deadline.min(Instant::now() + Duration::from_secs(10));
        if tab.form_pending(by).await == Some(true) {
            return Some(Failure::NeverSent {
                filled: self.unsent.clone(),
                previous: self.previous.clone().map(Box::new),
            });
        }
        None
    }

    fn form_errors(&self, errors: Vec<String>) -> Failure {
        Failure::FormErrors {
            errors,
            previous: self.previous.clone().map(Box::new),
        }
    }

    fn address_of(&self, inbox_id: &Option<String>) -> String {
        self.mailboxes
            .get(inbox_id)
            .map(|m| m.address().to_string())
            .unwrap_or_default()
    }

    /// The message an inbox step takes: with [`Mail::Remembered`], the one the last
    /// `wait_for_email` read if it matches `filter`; else the next new one, unless the form the
    /// last click sent comes back with errors first: then no mail is coming, and the step
    /// fails with what the page says.
    async fn message_unless_form_back(
        &mut self,
        tab: &Tab,
        inbox_id: &Option<String>,
        filter: &MailFilter,
        deadline: Instant,
        which: Mail,
    ) -> Result<Taken, Failure> {
        if which == Mail::Remembered
            && let Some(taken) = self.remembered.remove(inbox_id)
        {
            if filter.matches(&taken.message) {
                return Ok(taken);
            }
            self.remembered.insert(inbox_id.clone(), taken);
        }
        let previous = self.previous.clone();
        let cut_short = self.form_came_back(tab);
        // The mail first: both may be ready at once.
        let errors = tokio::select! {
            biased;
            m = self.next_message(inbox_id, filter, deadline) => return m,
            errors = cut_short => errors,
        };
        // Mail wins: when the mail the step waits for is there, the step goes on whatever the
        // page shows. One more read of the mailbox, as long as a read takes, decides; so the
        // verdict never hangs on which of the two answered first.
        let read_by = deadline.min(Instant::now() + MAIL_READ);
        match self.next_message(inbox_id, filter, read_by).await {
            Ok(msg) => Ok(msg),
            Err(_) => Err(Failure::FormErrors {
                errors,
                previous: previous.map(Box::new),
            }),
        }
    }

    async fn next_message(
        &mut self,
        inbox_id: &Option<String>,
        filter: &MailFilter,
        deadline: Instant,
    ) -> Result<Taken, Failure> {
        let Some(mailbox) = self.mailboxes.get_mut(inbox_id) else {
            return Err(Failure::UnboundInbox {
                name: inbox_id.clone(),
            });
        };
        let consumed = self.consumed.entry(inbox_id.clone()).or_default();
        match wait_for_message(mailbox.as_mut(), filter, consumed, deadline).await {
            Ok(taken) => {
                crate::phase::mark(&self.run_id, "mail delivered");
                Ok(taken)
            }
            Err(error) => Err(Failure::Mail {
                error: Box::new(error),
                previous: None,
            }
            .after(self.previous.clone())),
        }
    }
}

/// A step as it runs: its tab, its place in the plan, its deadline, and how long it had to
/// wait when it began (what a page failure says it waited).
#[derive(Clone, Copy)]
struct At<'t> {
    tab: &'t Tab,
    index: usize,
    deadline: Instant,
    waited: Duration,
}

impl At<'_> {
    /// A page error as this step's failure.
    fn page(&self) -> impl Fn(PageError) -> Failure + use<> {
        let waited = self.waited;
        move |error| Failure::Page {
            error: Box::new(error),
            waited,
            previous: None,
        }
    }
}

/// The mails an inbox step takes: from `from`, about `subject`, where given.
fn mail_filter(from: &Option<String>, subject: &Option<String>) -> MailFilter {
    MailFilter {
        from: from.clone(),
        subject: subject.clone(),
    }
}

async fn wait_seconds(seconds: f64) -> StepDetail {
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    StepDetail {
        seconds: Some(seconds),
        ..StepDetail::default()
    }
}

/// Reads the text of `selector`, or of the page's main content.
async fn extract_text(at: At<'_>, selector: Option<&str>) -> Result<StepDetail, Failure> {
    let read = at
        .tab
        .extract_text(selector, at.deadline)
        .await
        .map_err(at.page())?;
    Ok(StepDetail {
        text: Some(read.text),
        ..StepDetail::located(Located {
            strategy: if selector.is_some() {
                "selector"
            } else {
                "main"
            }
            .into(),
            element: Some(read.element),
            ..Default::default()
        })
    })
}

fn email_seen(taken: &Taken) -> EmailSeen {
    let msg = &taken.message;
    EmailSeen {
        subject: msg.subject.clone(),
        from: msg.from.clone(),
        received_at: msg.received_at.to_rfc3339_opts(SecondsFormat::Millis, true),
        older_copies: taken.older_copies,
    }
}

/// Which message an inbox step takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mail {
    /// The next new one (`wait_for_email`).
    Next,
    /// The one the last `wait_for_email` read if it matches, else the next new one.
    Remembered,
}
