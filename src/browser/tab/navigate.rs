//! Opening a page: the top-level navigation a step starts, judged by the lock at every hop,
//! and a move within the same document.

use super::*;

impl Tab {
    /// Goes to `url` and waits for its `load` event. HTTP errors (4xx/5xx) fail the step.
    pub async fn navigate(&self, url: &str, deadline: Instant) -> Result<Navigated, PageError> {
        self.end_submission();
        let parsed = Url::parse(url).map_err(|e| PageError::BadUrl {
            url: url.to_string(),
            problem: e.to_string(),
        })?;
        self.lock
            .check_navigation(&parsed)
            .await
            .map_err(PageError::Refused)?;
        if self.is_same_document(&parsed).await {
            return self.navigate_within_document(&parsed, deadline).await;
        }
        let mut lifecycle = self.events::<EventLifecycleEvent>().await?;
        let mut responses = self.events::<EventResponseReceived>().await?;
        let nav = NavigateParams::new(url);
        self.count();
        let sent = match self.wait_until(deadline, self.page.execute(nav)).await? {
            Some(Ok(r)) => r.result,
            Some(Err(e)) => {
                return Err(self
                    .refused()
                    .or_else(|| self.browser_gone())
                    .unwrap_or_else(|| PageError::LoadFailed {
                        url: url.to_string(),
                        reason: e.to_string(),
                    }));
            }
            None => {
                return Err(PageError::LoadTimedOut {
                    url: url.to_string(),
                    started: false,
                });
            }
        };
        if let Some(err) = sent.error_text.filter(|t| !t.is_empty()) {
            return Err(self.refused().unwrap_or_else(|| PageError::LoadFailed {
                url: url.to_string(),
                reason: err,
            }));
        }
        let Some(loader) = sent.loader_id else {
            return Ok(Navigated {
                url: url.to_string(),
                status: None,
                same_document: true,
            });
        };
        let main = self.page.target_id().inner().clone();
        // Status codes of main-frame documents, by loader.
        let mut statuses = std::collections::HashMap::new();
        // The document being waited for: ours, or the one a client-side redirect (script, meta
        // refresh) replaced it with while it loaded. The guard checked that one too.
        let mut current = loader.clone();
        let loaded = async {
            loop {
                tokio::select! {
                    // Earlier events first: a response is always handled before its load.
                    biased;
                    ev = responses.next() => {
                        if let Some(ev) = ev
                            && ev.r#type == ResourceType::Document
                        {
                            statuses.insert(ev.loader_id.clone(), ev.response.status);
                        }
                    }
                    ev = lifecycle.next() => match ev {
                        Some(ev) if ev.loader_id == current && ev.name == "load" => return true,
                        Some(ev) if ev.name == "init" && ev.frame_id.inner() == &main => {
                            current = ev.loader_id.clone();
                        }
                        Some(_) => {}
                        None => return false,
                    },
                }
            }
        };
        match self.wait_until(deadline, loaded).await? {
            Some(true) => {}
            Some(false) => return Err(self.browser_gone().unwrap_or(PageError::PageClosed)),
            None => {
                return Err(PageError::LoadTimedOut {
                    url: url.to_string(),
                    started: true,
                });
            }
        }
        if let Some(e) = self.refused() {
            return Err(e);
        }
        let status = statuses
            .get(&current)
            .copied()
            .and_then(|c| u16::try_from(c).ok());
        if let Some(code) = status
            && code >= 400
        {
            return Err(PageError::HttpStatus {
                url: url.to_string(),
                status: code,
            });
        }
        Ok(Navigated {
            url: self.url().await,
            status,
            same_document: false,
        })
    }

    /// Whether going to `url` only changes the current page's fragment (`/a` → `/a#b`):
    /// a same-document navigation, which loads nothing.
    async fn is_same_document(&self, url: &Url) -> bool {
        use url::Position::AfterQuery;
        if url.fragment().is_none() {
            // Without a fragment, even the same URL loads the document again.
            return false;
        }
        Url::parse(&self.url().await).is_ok_and(|now| now[..AfterQuery] == url[..AfterQuery])
    }

    /// Changes the fragment in the page, as a link to `#b` would. `Page.navigate` is not
    /// used: chromiumoxide answers it only once a `load` comes, and a fragment change has
    /// none.
    async fn navigate_within_document(
        &self,
        url: &Url,
        deadline: Instant,
    ) -> Result<Navigated, PageError> {
        let assign = EvaluateParams::builder()
            .expression(format!("location.href = {}", json!(url.as_str())))
            .build()
            .expect("expression is set");
        self.count();
        match self.wait_until(deadline, self.page.execute(assign)).await? {
            Some(Ok(_)) => Ok(Navigated {
                url: url.to_string(),
                status: None,
                same_document: true,
            }),
            Some(Err(e)) => Err(self.cdp_failure(BrowserError::Cdp(e.to_string()))),
            None => Err(PageError::LoadTimedOut {
                url: url.to_string(),
                started: false,
            }),
        }
    }
}
