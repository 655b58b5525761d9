//! What each step type does: the browser actions through the run's tab, the inbox steps
//! through its mailboxes, and the facts each one records.

use std::time::Duration;

use chrono::SecondsFormat;
use tokio::time::Instant;

use super::{EmailSeen, Failure, Previous, PreviousAction, Run, StepDetail};
use crate::browser::{Candidate, Located, Tab};
use crate::inbox::Message;
use crate::inbox::extract::{self, LinkError};
use crate::inbox::wait::{MailFilter, wait_for_message};
use crate::plan::Step;

impl Run<'_> {
    /// Runs one step; a wait that runs out is explained by the browser step before it.
    pub(super) async fn step(
        &mut self,
        tab: &Tab,
        index: usize,
        step: &Step,
        deadline: Instant,
    ) -> Result<StepDetail, Failure> {
        let waited = deadline.saturating_duration_since(Instant::now());
        let page = |error| Failure::Page {
            error: Box::new(error),
            waited,
            previous: None,
        };
        match step {
            Step::Navigate { url, .. } => {
                let nav = tab.navigate(url, deadline).await.map_err(page)?;
                self.opened(index, &nav.url);
                Ok(StepDetail {
                    url: Some(nav.url),
                    status: nav.status,
                    same_document: nav.same_document.then_some(true),
                    ..StepDetail::default()
                })
            }
            Step::Click {
                describe,
                text,
                selector,
                ..
            } => {
                let clicked = tab
                    .click(describe, text.as_deref(), selector.as_deref(), deadline)
                    .await
                    .map_err(page)?;
                let element = clicked.located.chosen.clone();
                self.previous = Some(Previous {
                    step: index,
                    action: PreviousAction::Clicked {
                        element: element.or_else(|| {
                            Some(Candidate {
                                element: clicked.located.element.clone(),
                                text: text.clone(),
                                ..Candidate::default()
                            })
                        }),
                        described: Some(describe.clone()),
                        navigated: clicked.navigation.is_some(),
                    },
                    url: Some(tab.url().await),
                    filled: std::mem::take(&mut self.filled),
                });
                Ok(StepDetail {
                    navigation: clicked.navigation,
                    located: Some(clicked.located),
                    ..StepDetail::default()
                })
            }
            Step::Fill {
                describe,
                label,
                selector,
                value,
                ..
            } => {
                let located = tab
                    .fill(
                        describe,
                        label.as_deref(),
                        selector.as_deref(),
                        value,
                        self.masker.mask(value) != *value,
                        deadline,
                    )
                    .await
                    .map_err(page)?;
                self.filled_at(index);
                Ok(StepDetail {
                    located: Some(located),
                    ..StepDetail::default()
                })
            }
            Step::WaitSeconds { seconds, .. } => {
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                Ok(StepDetail {
                    seconds: Some(*seconds),
                    ..StepDetail::default()
                })
            }
            Step::WaitForText { text, .. } => {
                tab.wait_for_text(text, deadline)
                    .await
                    .map_err(|e| page(e).after(self.previous.clone()))?;
                Ok(StepDetail {
                    text: Some(text.clone()),
                    ..StepDetail::default()
                })
            }
            Step::ExtractText { selector, .. } => {
                let read = tab
                    .extract_text(selector.as_deref(), deadline)
                    .await
                    .map_err(page)?;
                Ok(StepDetail {
                    text: Some(read.text),
                    located: Some(Located {
                        strategy: if selector.is_some() {
                            "selector"
                        } else {
                            "main"
                        }
                        .into(),
                        element: Some(read.element),
                        ..Default::default()
                    }),
                    ..StepDetail::default()
                })
            }
            Step::Done { summary, .. } => Ok(StepDetail {
                summary: Some(summary.clone()),
                ..StepDetail::default()
            }),
            Step::WaitForEmail {
                inbox_id,
                from,
                subject,
                ..
            } => {
                let filter = MailFilter {
                    from: from.clone(),
                    subject: subject.clone(),
                };
                let msg = self.next_message(inbox_id, &filter, deadline).await?;
                let email = email_seen(&msg);
                self.remembered.insert(inbox_id.clone(), msg);
                Ok(StepDetail {
                    email: Some(email),
                    ..StepDetail::default()
                })
            }
            Step::UseOtpFromInbox {
                inbox_id, selector, ..
            } => {
                let msg = self
                    .message_for_use(inbox_id, &MailFilter::default(), deadline)
                    .await?;
                let address = self.address_of(inbox_id);
                let Some(otp) = extract::find_otp(&msg.raw, &address) else {
                    return Err(Failure::NoCode {
                        subject: msg.subject,
                        from: msg.from,
                    });
                };
                let located = tab
                    .fill_code(selector, &otp.code, deadline)
                    .await
                    .map_err(page)?;
                self.filled_at(index);
                Ok(StepDetail {
                    located: Some(located),
                    email: Some(email_seen(&msg)),
                    code: Some(extract::mask_code(&otp.code)),
                    ..StepDetail::default()
                })
            }
            Step::OpenLinkFromInbox { inbox_id, from, .. } => {
                let filter = MailFilter {
                    from: from.clone(),
                    subject: None,
                };
                let msg = self.message_for_use(inbox_id, &filter, deadline).await?;
                let lock = tab.lock();
                let link = match extract::find_link(&msg.raw, &|u| lock.check(u).is_ok()) {
                    Ok(link) => link,
                    Err(LinkError::OnlyOutside { candidates }) => {
                        let refusal = candidates.first().and_then(|url| lock.check(url).err());
                        return Err(match refusal {
                            Some(refusal) => Failure::LinksOutside {
                                subject: msg.subject,
                                refusal,
                            },
                            None => Failure::NoLink {
                                subject: msg.subject,
                                from: msg.from,
                            },
                        });
                    }
                    Err(LinkError::NoCandidates) => {
                        return Err(Failure::NoLink {
                            subject: msg.subject,
                            from: msg.from,
                        });
                    }
                };
                let nav = tab
                    .navigate(link.url.as_str(), deadline)
                    .await
                    .map_err(page)?;
                self.opened(index, &nav.url);
                Ok(StepDetail {
                    url: Some(nav.url),
                    status: nav.status,
                    email: Some(email_seen(&msg)),
                    link: Some(link.url.to_string()),
                    anchor_text: Some(link.anchor_text),
                    ..StepDetail::default()
                })
            }
        }
    }

    /// A page was opened: earlier fills belonged to the page left behind.
    fn opened(&mut self, index: usize, url: &str) {
        self.filled.clear();
        self.previous = Some(Previous {
            step: index,
            action: PreviousAction::Opened,
            url: Some(url.to_string()),
            filled: Vec::new(),
        });
    }

    fn filled_at(&mut self, index: usize) {
        self.filled.push(index);
        self.previous = Some(Previous {
            step: index,
            action: PreviousAction::Filled,
            url: None,
            filled: self.filled.clone(),
        });
    }

    fn address_of(&self, inbox_id: &Option<String>) -> String {
        self.mailboxes
            .get(inbox_id)
            .map(|m| m.address().to_string())
            .unwrap_or_default()
    }

    /// The remembered message if it matches, else the next new one.
    async fn message_for_use(
        &mut self,
        inbox_id: &Option<String>,
        filter: &MailFilter,
        deadline: Instant,
    ) -> Result<Message, Failure> {
        if let Some(msg) = self.remembered.remove(inbox_id) {
            if filter.matches(&msg) {
                return Ok(msg);
            }
            self.remembered.insert(inbox_id.clone(), msg);
        }
        self.next_message(inbox_id, filter, deadline).await
    }

    async fn next_message(
        &mut self,
        inbox_id: &Option<String>,
        filter: &MailFilter,
        deadline: Instant,
    ) -> Result<Message, Failure> {
        let Some(mailbox) = self.mailboxes.get_mut(inbox_id) else {
            return Err(Failure::UnboundInbox {
                name: inbox_id.clone(),
            });
        };
        let consumed = self.consumed.entry(inbox_id.clone()).or_default();
        match wait_for_message(mailbox.as_mut(), filter, consumed, deadline).await {
            Ok(msg) => {
                consumed.insert(msg.id.clone());
                Ok(msg)
            }
            Err(error) => Err(Failure::Mail {
                error: Box::new(error),
                previous: None,
            }
            .after(self.previous.clone())),
        }
    }
}

fn email_seen(msg: &Message) -> EmailSeen {
    EmailSeen {
        subject: msg.subject.clone(),
        from: msg.from.clone(),
        received_at: msg.received_at.to_rfc3339_opts(SecondsFormat::Millis, true),
    }
}
