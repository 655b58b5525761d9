//! The plan's questions put to the person behind the client, for `act`: by elicitation when
//! the client declared it (MCP 2026-07-28 and later through the client's retry of the call,
//! earlier versions as requests to the client), else their suggestions are taken and said.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, PrimitiveSchemaDefinition,
    ProtocolVersion, StringSchema,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::{Tools, Waiting, caller_of};
use crate::pipeline::{Answer, AnswerSource};
use crate::server::error::{ApiError, ApiErrorKind};
use crate::server::planning::{self, Planning};
use crate::server::request::Ask;
use crate::server::state::Caller;

/// How long a planned `act` waits for its client to answer the plan's questions.
pub(super) const ANSWER_WAIT: Duration = Duration::from_secs(600);

/// A goal planned for `act`: ready to run with the answers given, or waiting for the
/// client's retry with them.
pub(super) enum Planned {
    Ready(Box<Planning>, Vec<(String, String)>),
    Asking(InputRequiredResult),
}

impl Tools {
    /// Plans the goal (or takes up the planning a retry of the call answers) and asks the
    /// plan's open questions the way the client can be asked.
    pub(super) async fn planned(
        &self,
        request: &CallToolRequestParams,
        goal: String,
        ask: &Ask,
        context: &RequestContext<RoleServer>,
    ) -> Result<Planned, ApiError> {
        // The client's retry with the answers to the questions it was asked.
        let caller = caller_of(&self.state, context);
        let resumed = request.request_state.as_ref().and_then(|handle| {
            let mut waiting = self.waiting();
            waiting.retain(|_, w| w.since.elapsed() < ANSWER_WAIT);
            match waiting.get(handle) {
                Some(w) if w.caller == caller => waiting.remove(handle),
                _ => None,
            }
        });
        if let Some(w) = resumed {
            let asked = answered(&w.planning, request.input_responses.as_ref())?;
            return Ok(Planned::Ready(Box::new(w.planning), asked));
        }
        let planning = planning::plan_goal(&self.state, goal, ask, true).await?;
        let open = planning
            .request
            .open_questions(&planning.outcome.plan)
            .len();
        Ok(match how_to_ask(context) {
            Asking::None => Planned::Ready(Box::new(planning), Vec::new()),
            _ if open == 0 => Planned::Ready(Box::new(planning), Vec::new()),
            Asking::Retry => Planned::Asking(self.ask_by_retry(planning, caller)),
            Asking::Request => {
                let asked = ask_by_request(&planning, context).await?;
                Planned::Ready(Box::new(planning), asked)
            }
        })
    }

    /// Asks the plan's open questions as input the client's retry of the call carries
    /// (MCP 2026-07-28): the planning waits here under a handle the client echoes.
    fn ask_by_retry(&self, planning: Planning, caller: Caller) -> InputRequiredResult {
        let mut requests = InputRequests::new();
        for q in planning.request.open_questions(&planning.outcome.plan) {
            let params = form_for(&q.ask, &q.suggested);
            requests.insert(
                q.var.clone(),
                InputRequest::Elicitation(ElicitRequest::new(params)),
            );
        }
        // Unguessable: the handle alone takes up the planning.
        let handle = format!("act-{:032x}", rand::random::<u128>());
        let mut waiting = self.waiting();
        // Plans whose questions were never answered are dropped after the wait.
        waiting.retain(|_, w| w.since.elapsed() < ANSWER_WAIT);
        waiting.insert(
            handle.clone(),
            Waiting {
                planning,
                caller,
                since: Instant::now(),
            },
        );
        InputRequiredResult::new(Some(requests), Some(handle))
    }
}

/// What the answers say about who answered.
pub(super) fn answers_line(answers: &[Answer]) -> Option<String> {
    let taken: Vec<String> = answers
        .iter()
        .filter(|a| a.source == AnswerSource::Suggested)
        .map(|a| format!("{{{{{}}}}} = \"{}\"", a.var, a.value))
        .collect();
    (!taken.is_empty()).then(|| {
        format!(
            "nobody answered the plan's questions, so their suggestions were taken: {}",
            taken.join(", ")
        )
    })
}

/// How the plan's questions reach the person behind the client.
enum Asking {
    /// The client cannot elicit: suggestions are taken.
    None,
    /// MCP 2026-07-28 and later: as input the client's retry carries.
    Retry,
    /// Older protocol versions: as requests to the client.
    Request,
}

fn how_to_ask(context: &RequestContext<RoleServer>) -> Asking {
    let can = context
        .client_capabilities()
        .is_some_and(|c| c.elicitation.is_some());
    if !can {
        return Asking::None;
    }
    match context.protocol_version() {
        Some(v) if v >= ProtocolVersion::V_2026_07_28 => Asking::Retry,
        _ => Asking::Request,
    }
}

/// A form of one string field, `answer`, the suggestion as its default.
fn form_for(ask: &str, suggested: &str) -> ElicitRequestParams {
    let field = StringSchema::new()
        .title("answer")
        .description(ask.to_string())
        .with_default(suggested.to_string());
    let schema = ElicitationSchema::builder()
        .required_property("answer", PrimitiveSchemaDefinition::String(field))
        .build()
        .unwrap_or_else(|_| ElicitationSchema::new(Default::default()));
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("{ask} (suggested: {suggested})"),
        requested_schema: schema,
    }
}

/// The value an elicitation's answer gives its question: accepted → what was typed (the
/// suggestion when nothing was); declined → `None` (the suggestion is taken); cancelled →
/// nothing runs.
fn elicited(var: &str, result: &ElicitResult) -> Result<Option<String>, ApiError> {
    match result.action {
        ElicitationAction::Accept => Ok(result
            .content
            .as_ref()
            .and_then(|c| c.get("answer"))
            .and_then(Value::as_str)
            .map(str::to_string)),
        ElicitationAction::Decline => Ok(None),
        _ => Err(ApiError::new(
            ApiErrorKind::Cancelled,
            format!("the question for {{{{{var}}}}} was dismissed, so nothing ran"),
        )),
    }
}

/// The answers a client's retry carries, by question.
fn answered(
    planning: &Planning,
    responses: Option<&rmcp::model::InputResponses>,
) -> Result<Vec<(String, String)>, ApiError> {
    let mut asked = Vec::new();
    for q in planning.request.open_questions(&planning.outcome.plan) {
        let Some(raw) = responses.and_then(|r| r.get(&q.var)) else {
            continue;
        };
        let result: ElicitResult = serde_json::from_value(raw.clone()).map_err(|e| {
            ApiError::new(
                ApiErrorKind::InvalidRequest,
                format!("inputResponses.{}: not an elicitation result: {e}", q.var),
            )
        })?;
        if let Some(value) = elicited(&q.var, &result)? {
            asked.push((q.var.clone(), value));
        }
    }
    Ok(asked)
}

/// Asks each open question as a request to the client (protocol versions before
/// 2026-07-28).
async fn ask_by_request(
    planning: &Planning,
    context: &RequestContext<RoleServer>,
) -> Result<Vec<(String, String)>, ApiError> {
    let mut asked = Vec::new();
    for q in planning.request.open_questions(&planning.outcome.plan) {
        let result = context
            .peer
            .create_elicitation_with_timeout(form_for(&q.ask, &q.suggested), Some(ANSWER_WAIT))
            .await;
        match result {
            Ok(result) => {
                if let Some(value) = elicited(&q.var, &result)? {
                    asked.push((q.var.clone(), value));
                }
            }
            // A client that cannot answer after all: the suggestion stands.
            Err(e) => tracing::warn!(error = %e, var = %q.var, "question not answered"),
        }
    }
    Ok(asked)
}
