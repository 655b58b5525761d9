//! Planning a goal for the service, shared by the HTTP routes and the MCP tools: the
//! request locked under the service's address rule, the start page looked at through the
//! shared browser, and the one model call, each holding a planning slot.

use super::api::{Planned, PlannedLine, PlannedTag};
use super::error::{ApiError, ApiErrorKind};
use super::request::Ask;
use super::runs::{self, Launch};
use super::state::AppState;
use crate::lock::{AddressPolicy, LockError};
use crate::pipeline::{LockedRequest, Request, RequestError};
use crate::planner::{GeneratedPlan, LookChoice};

/// A goal the service locked and planned: the request (its lock) and the plan.
pub struct Planning {
    pub request: LockedRequest,
    pub outcome: GeneratedPlan,
}

/// Locks the request and looks at the goal's start page through the shared browser (its
/// egress, as a run would see it). A look that fails is a warning, and planning goes on
/// blind, unless the caller required it.
///
/// A plan that will not run here (`run: false`, `POST /v1/plans`) may name an address the
/// service never visits: it is then planned from the goal alone, with a warning, as it may
/// run elsewhere (`planlock run`, or with `allowed_hosts` naming it).
pub async fn lock_and_look(
    state: &AppState,
    goal: String,
    ask: &Ask,
    run: bool,
) -> Result<(LockedRequest, Option<String>), ApiError> {
    let mut request = match ask.request(state, goal.clone())?.lock().await {
        Ok(request) => request,
        Err(RequestError::Lock(
            e @ (LockError::PrivateAddress { .. } | LockError::ServiceAddress { .. }),
        )) if !run => {
            let mut blind = Request {
                look: LookChoice::Blind,
                ..ask.request(state, goal)?
            };
            blind.reach.policy = AddressPolicy::Open;
            let request = blind.lock().await?;
            return Ok((request, Some(format!("{e}; planned from the goal alone"))));
        }
        Err(e) => return Err(e.into()),
    };
    if !request.wants_look() {
        return Ok((request, None));
    }
    let browser = state.browser().await?;
    match request.look(&browser).await {
        Ok(None) => Ok((request, None)),
        Ok(Some(e)) => Ok((request, Some(format!("{e}; planned from the goal alone")))),
        Err(e) => Err(ApiError::new(
            ApiErrorKind::LookFailed,
            format!("{e} (`look` is \"required\")"),
        )),
    }
}

/// Locks, looks and plans with the one model call (none when cached), unless the server
/// shuts down first. Holds a planning slot while it works.
pub async fn plan_goal(
    state: &AppState,
    goal: String,
    ask: &Ask,
    run: bool,
) -> Result<Planning, ApiError> {
    state.accepting()?;
    let config = state.planner()?;
    let _permit = state.planning_permit()?;
    let (request, look_warning) = lock_and_look(state, goal, ask, run).await?;
    let mut outcome = tokio::select! {
        r = request.plan(config) => r?,
        _ = state.shutdown_token().cancelled() => return Err(ApiError::new(
            ApiErrorKind::ShuttingDown,
            "the server is shutting down; the plan was not made",
        )),
    };
    outcome.warnings.extend(look_warning);
    Ok(Planning { request, outcome })
}

/// The run of a planned goal, ready for the queue: its questions answered (the request's
/// variables, else what was `asked`, else the suggestions), run inside the request's lock,
/// with the planning streamed before its events and kept for a replica that claims it.
pub async fn launch_planned(
    state: &AppState,
    planning: Planning,
    asked: &[(String, String)],
    ask: Ask,
) -> Result<(Launch, Planned), ApiError> {
    let Planning { request, outcome } = planning;
    let answers = request.answers(&outcome.plan, asked);
    let spec = request.run(outcome.plan.clone(), &answers)?;
    let planned = Planned::of(&request, outcome, answers);
    let mut launch = runs::prepare(state, spec.named("act"), ask).await?;
    launch.replay.answered(&planned.answers);
    let launch = Launch {
        prelude: Some(PlannedLine {
            event: PlannedTag::Planned,
            planned: planned.clone(),
        }),
        ..launch
    };
    Ok((launch, planned))
}
