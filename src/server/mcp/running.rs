//! The tools that run: `run_plan` and `act` (following the run to its end, or with `wait:
//! false` answering its id at once), `get_run` (long-polling up to a minute) and
//! `cancel_run`. Runs go through the service's queue and store, as the HTTP API's do.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ProgressNotificationParam,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::Serialize;
use serde_json::Value;

use super::schema::MAX_WAIT_SECONDS;
use super::text::{result_text, view_text};
use super::{Tools, answer, arguments, asking, caller_of};
use crate::runner::{Event, RunResult};
use crate::server::api::{Planned, StreamLine};
use crate::server::cancel;
use crate::server::error::{ApiError, ApiErrorKind};
use crate::server::planning;
use crate::server::queue;
use crate::server::request::{ActBody, ReadBody, RunBody};
use crate::server::runs::{self, Launch, Started};
use crate::wait;

/// Where a run's events are.
#[derive(Serialize)]
pub(super) struct EventLog {
    run_id: String,
    href: String,
    count: usize,
}

/// A run that ended, as `run_plan` and `act` answer it.
#[derive(Serialize)]
struct Ran {
    #[serde(skip_serializing_if = "Option::is_none")]
    planning: Option<Planned>,
    result: RunResult,
    events: EventLog,
}

/// A run started with `wait: false`.
#[derive(Serialize)]
struct Accepted {
    run_id: String,
    /// `queued` or `running`.
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    planning: Option<Planned>,
}

impl Tools {
    /// A running tool's arguments: `wait` (true unless given false) taken off first, as the
    /// body refuses a field it does not know, then the rest read as `B`.
    fn read_waiting<B: ReadBody>(
        &self,
        request: &mut CallToolRequestParams,
    ) -> Result<(bool, B::Read), ApiError> {
        let wait = match request.arguments.as_mut().and_then(|a| a.remove("wait")) {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => b,
            Some(other) => {
                return Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
                    format!("`wait` is true or false, not {other}"),
                ));
            }
        };
        Ok((wait, self.read::<B>(request)?))
    }

    pub(super) async fn run_plan(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ApiError> {
        let (wait, (plan, ask)) = self.read_waiting::<RunBody>(&mut request)?;
        self.state.accepting()?;
        let spec = runs::replay_spec(&self.state, plan, &ask);
        let launch = runs::prepare(&self.state, spec, ask).await?;
        self.start(launch, None, None, wait, context).await
    }

    pub(super) async fn act(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ApiError> {
        let (wait, (goal, ask)) = self.read_waiting::<ActBody>(&mut request)?;
        let (planning, asked) = match self.planned(&request, goal, &ask, context).await? {
            asking::Planned::Ready(planning, asked) => (planning, asked),
            asking::Planned::Asking(input) => return Ok(input.into()),
        };
        let (launch, planned) =
            planning::launch_planned(&self.state, *planning, &asked, ask).await?;
        let mut text = planned.review.text.clone();
        if let Some(line) = asking::answers_line(&planned.answers) {
            text.push_str(&format!("\n{line}\n"));
        }
        Ok(self
            .start(launch, Some(planned), Some(text), wait, context)
            .await?
            .into())
    }

    /// Starts a run as the call asked: with `wait`, followed to its end and answered with its
    /// result; without, answered with its id at once. `review` (what `act` planned) leads the
    /// answer's text either way.
    async fn start(
        &self,
        launch: Launch,
        planning: Option<Planned>,
        review: Option<String>,
        wait: bool,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ApiError> {
        if !wait {
            return self.accept(launch, planning, review, context).await;
        }
        let (result, events) = self.follow(launch, context).await?;
        let text = led_by(review, result_text(&result));
        let ran = Ran {
            planning,
            result,
            events,
        };
        Ok(answer(&ran, text))
    }

    /// Starts a run and answers its id at once (after `review`, if any): the agent follows it
    /// with `get_run`.
    async fn accept(
        &self,
        launch: Launch,
        planning: Option<Planned>,
        review: Option<String>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ApiError> {
        let started =
            queue::start(&self.state, &caller_of(&self.state, context), launch, false).await?;
        let status = match self.state.store().get(&started.run_id).await? {
            Some(run) => run.status.as_str().to_string(),
            None => "queued".to_string(),
        };
        let text = format!(
            "Run {id} started ({status}). Follow it with get_run {{\"id\": \"{id}\", \
             \"wait_seconds\": 60}} until it ends; cancel it with cancel_run {{\"id\": \"{id}\"}}.",
            id = started.run_id
        );
        let text = led_by(review, text);
        let accepted = Accepted {
            run_id: started.run_id,
            status,
            planning,
        };
        Ok(answer(&accepted, text))
    }

    /// Starts a run and follows it to its end: each step as a progress notification (sent
    /// from the run's lines, so a slow client never holds the run up), cancelled with the
    /// call.
    async fn follow(
        &self,
        launch: Launch,
        context: &RequestContext<RoleServer>,
    ) -> Result<(RunResult, EventLog), ApiError> {
        let total = launch.run.plan().steps.len();
        let Started {
            run_id,
            mut done,
            lines,
        } = queue::start(&self.state, &caller_of(&self.state, context), launch, true).await?;
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let mut count = 0usize;
        let mut lines = lines;
        let ended = async {
            loop {
                let next = match lines.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => None,
                };
                let Some(line) = next else {
                    // The stream is over; the result is (about to be) stored.
                    let _ = done.wait_for(Option::is_some).await;
                    return done.borrow().clone();
                };
                let event = match line {
                    StreamLine::Planned(_) => continue,
                    StreamLine::Result(_) => {
                        let _ = done.wait_for(Option::is_some).await;
                        return done.borrow().clone();
                    }
                    StreamLine::Event(event) => event,
                };
                count += 1;
                if let (Some(token), Some((index, message))) =
                    (&token, progress_message(&event, total, &run_id))
                {
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(token.clone(), index as f64)
                                .with_total(total as f64)
                                .with_message(message),
                        )
                        .await;
                }
            }
        };
        let result = tokio::select! {
            r = ended => r,
            _ = context.ct.cancelled() => {
                // The client gave up on the call: the run ends as cancelled.
                cancel::run(&self.state, &run_id).await?;
                let mut done = self.state.registry().handle(&run_id).map(|(_, d)| d);
                match done.as_mut() {
                    Some(d) => { let _ = d.wait_for(Option::is_some).await; d.borrow().clone() }
                    None => None,
                }
            }
        };
        let result = match result {
            Some(r) => r.as_ref().clone(),
            None => match self.state.store().get(&run_id).await? {
                Some(stored) => match stored.result {
                    Some(r) => r,
                    None => return Err(ApiError::internal("a run ended without a result")),
                },
                None => return Err(ApiError::internal("a run ended without a result")),
            },
        };
        let events = EventLog {
            href: format!("/v1/runs/{run_id}"),
            run_id,
            count,
        };
        Ok((result, events))
    }

    pub(super) async fn get_run(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ApiError> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct GetRun {
            id: String,
            #[serde(default)]
            wait_seconds: f64,
        }
        let GetRun { id, wait_seconds } = arguments(request)?;
        if !(0.0..=MAX_WAIT_SECONDS as f64).contains(&wait_seconds) {
            return Err(ApiError::new(
                ApiErrorKind::InvalidRequest,
                format!(
                    "wait_seconds {wait_seconds} is out of range: give 0 to {MAX_WAIT_SECONDS} \
                     and call again while the run goes on"
                ),
            ));
        }
        if wait_seconds > 0.0 {
            let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(wait_seconds);
            tokio::select! {
                () = self.until_ended(&id, deadline) => {}
                () = context.ct.cancelled() => {}
            }
        }
        let run = self
            .state
            .store()
            .get(&id)
            .await?
            .ok_or_else(|| runs::unknown_run(&self.state, &id))?;
        let view = runs::view(&self.state, &run).await?;
        let text = view_text(&view);
        Ok(answer(&serde_json::json!({"run": view}), text))
    }

    /// Returns when run `id` has ended (its result stored) or at `deadline`: through the
    /// run's own signal when this server runs it, else by reading the shared store.
    async fn until_ended(&self, id: &str, deadline: tokio::time::Instant) {
        if let Some((_, mut done)) = self.state.registry().handle(id) {
            let _ = tokio::time::timeout_at(deadline, done.wait_for(Option::is_some)).await;
            return;
        }
        let store = self.state.store();
        let _ = wait::until(deadline, Duration::from_millis(250), || async {
            match store.get(id).await {
                Ok(Some(run)) if run.result.is_none() => None,
                // Ended, unknown, or the store failed: the answer says which.
                _ => Some(()),
            }
        })
        .await;
    }

    pub(super) async fn cancel_run(
        &self,
        request: &CallToolRequestParams,
    ) -> Result<CallToolResult, ApiError> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Id {
            id: String,
        }
        let Id { id } = arguments(request)?;
        let (_, view) = cancel::run(&self.state, &id).await?;
        let text = view_text(&view);
        Ok(answer(&serde_json::json!({"run": view}), text))
    }
}

/// "run ID step 2 of 7: the Email field", or "run ID step 5 of 7: waiting for mail": the
/// run's id first, for `get_run` and `cancel_run`; with the step's number (from 1), the
/// progress made.
pub(super) fn progress_message(
    event: &Event,
    total: usize,
    run_id: &str,
) -> Option<(usize, String)> {
    match event {
        Event::StepStarted { step, .. } => {
            let what = if step.step_type.reads_mail() {
                "waiting for mail"
            } else if step.describe.is_empty() {
                step.step_type.as_str()
            } else {
                &step.describe
            };
            let n = step.index + 1;
            Some((n, format!("run {run_id} step {n} of {total}: {what}")))
        }
        Event::StepFailed { step, .. } => {
            let n = step.index + 1;
            Some((n, format!("run {run_id} step {n} of {total} failed")))
        }
        _ => None,
    }
}

/// `text`, after `review` and a line break when there is one.
fn led_by(review: Option<String>, text: String) -> String {
    match review {
        Some(review) => format!("{review}\n{text}"),
        None => text,
    }
}
