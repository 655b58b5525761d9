//! MCP: the service's tools for agents (`plan`, `act`, `run_plan`, `get_run`, `cancel_run`),
//! over stdio (`planlock mcp`) and streamable HTTP (`/mcp` on `planlock serve`).
//!
//! Each tool reads the body its HTTP endpoint reads (`POST /v1/plans`, `/v1/act`,
//! `/v1/runs`) and answers in the API's shapes, through the same pipeline and run queue: the
//! lock, the secrets rule and the inbox rules are the HTTP API's. `act` asks the plan's
//! questions by elicitation when the client can answer them, else takes the suggestions and
//! says so; a run reports each step as a progress notification and ends when the client
//! cancels the call or calls `cancel_run`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, Implementation,
    InputRequest, InputRequests, InputRequiredResult, JsonObject, ListToolsResult,
    PaginatedRequestParams, PrimitiveSchemaDefinition, ProgressNotificationParam, ProtocolVersion,
    ServerCapabilities, ServerConfig, StringSchema, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::api::{PlanPreview, Planned, PlannedLine, PlannedTag, RunView};
use super::error::{ApiError, ApiErrorKind};
use super::openapi;
use super::request::{ActBody, PlansBody, RunBody};
use super::routes::{self, Planning};
use super::runs::{self, Launch, Started};
use super::state::{AppState, Caller};
use crate::pipeline::{Answer, AnswerSource};
use crate::plan::StepType;
use crate::runner::RunResult;

/// How long a planned `act` waits for its client to answer the plan's questions.
const ANSWER_WAIT: Duration = Duration::from_secs(600);

/// The tools, over one service state (its store, browser, queue and inboxes).
#[derive(Clone)]
pub struct Tools {
    state: AppState,
    /// `act` calls planned and waiting for their questions' answers (MCP 2026-07-28 and
    /// later ask through the client's retry of the call), by the handle the client echoes.
    waiting: Arc<Mutex<HashMap<String, Waiting>>>,
}

/// A planned `act` whose questions went to the client.
struct Waiting {
    planning: Planning,
    /// Who asked: only the same caller's retry takes it up.
    caller: Caller,
    since: Instant,
}

impl Tools {
    pub fn new(state: AppState) -> Tools {
        Tools {
            state,
            waiting: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The tool list with input and output schemas. The schemas are the OpenAPI document's,
/// so a tool takes exactly what its endpoint takes.
pub fn tools() -> Vec<Tool> {
    let run_out = object_schema(&[("result", "RunResult"), ("events", "EventLog")], &[]);
    vec![
        Tool::new(
            "plan",
            "Turn a goal into a plan with one model call (none when cached), without running \
             it: the plan, its review (the hosts the run may visit, what each step does, steps \
             that look destructive or costly) and its questions with their suggested answers. \
             Arguments as POST /v1/plans.",
            input_schema("PlansBody"),
        )
        .with_raw_output_schema(Arc::new(object_schema(
            &[],
            &[("planning", "Planned"), ("preview", "PlanPreview")],
        )))
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "act",
            "Plan a goal with one model call, then run the plan in a browser and the bound \
             inbox inside a lock fixed from the request. The plan's questions are asked by \
             elicitation when the client supports it, else their suggested answers are taken \
             (said in `planning.answers`). Progress: one notification per step. Arguments as \
             POST /v1/act.",
            input_schema("ActBody"),
        )
        .with_raw_output_schema(Arc::new(object_schema(
            &[
                ("planning", "Planned"),
                ("result", "RunResult"),
                ("events", "EventLog"),
            ],
            &[],
        ))),
        Tool::new(
            "run_plan",
            "Replay a plan (a committed plan file's JSON) with no model: its lock is the \
             plan's navigate hosts and allowed_hosts. Arguments as POST /v1/runs.",
            input_schema("RunBody"),
        )
        .with_raw_output_schema(Arc::new(run_out)),
        Tool::new(
            "get_run",
            "A run by id: its result once it ended, else its progress.",
            id_schema(),
        )
        .with_raw_output_schema(Arc::new(object_schema(&[("run", "RunView")], &[])))
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "cancel_run",
            "Cancel a queued or running run; answers the run (`cancelled`, or as it ended \
             before).",
            id_schema(),
        )
        .with_raw_output_schema(Arc::new(object_schema(&[("run", "RunView")], &[]))),
    ]
}

/// The OpenAPI document's schemas, as JSON Schema definitions (`#/$defs/NAME`), with the
/// tools' own: where a run's events are.
fn definitions() -> Value {
    let mut defs = openapi::document()["components"]["schemas"].clone();
    if let Some(map) = defs.as_object_mut() {
        map.insert(
            "EventLog".into(),
            json!({
                "type": "object",
                "description": "Where the run's event log is: the get_run tool, or GET href.",
                "properties": {
                    "run_id": {"type": "string"},
                    "href": {"type": "string", "description": "/v1/runs/RUN_ID on the HTTP API"},
                    "count": {"type": "integer", "description": "Events the run wrote."}
                },
                "required": ["run_id", "href", "count"]
            }),
        );
    }
    let text = defs
        .to_string()
        .replace("#/components/schemas/", "#/$defs/");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// A request body's schema as a tool's input schema.
fn input_schema(body: &str) -> JsonObject {
    let defs = definitions();
    let mut schema = defs[body].as_object().cloned().unwrap_or_default();
    schema.insert("type".into(), json!("object"));
    schema.insert("$defs".into(), defs);
    schema
}

/// `{"id": "RUN_ID"}`.
fn id_schema() -> JsonObject {
    json!({
        "type": "object",
        "properties": {"id": {"type": "string", "description": "The run's id."}},
        "required": ["id"],
        "additionalProperties": false
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

/// An object whose `required` and `optional` properties are the named definitions.
fn object_schema(required: &[(&str, &str)], optional: &[(&str, &str)]) -> JsonObject {
    let mut properties = serde_json::Map::new();
    for (name, def) in required.iter().chain(optional) {
        properties.insert((*name).into(), json!({"$ref": format!("#/$defs/{def}")}));
    }
    let names: Vec<&str> = required.iter().map(|(n, _)| *n).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": names,
        "$defs": definitions(),
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

/// The arguments read as the endpoint reads its body.
fn arguments<T: DeserializeOwned>(request: &CallToolRequestParams) -> Result<T, ApiError> {
    let value = Value::Object(request.arguments.clone().unwrap_or_default());
    serde_json::from_value(value).map_err(|e| {
        ApiError::new(
            ApiErrorKind::InvalidRequest,
            format!("the arguments are not a valid request: {e}"),
        )
    })
}

/// A tool's structured answer, with the same JSON as its text.
fn answer(value: &impl Serialize, text: String) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or(Value::Null);
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// An error as the API words it: `{"error": {"kind", "message", "problems"?}}`, flagged as
/// the tool's.
fn failed(e: ApiError) -> CallToolResult {
    let body = serde_json::to_string(&e.body()).unwrap_or_default();
    CallToolResult::error(vec![ContentBlock::text(body)])
}

/// Where a run's events are.
#[derive(Serialize)]
struct EventLog {
    run_id: String,
    href: String,
    count: usize,
}

#[derive(Serialize)]
struct Ran {
    #[serde(skip_serializing_if = "Option::is_none")]
    planning: Option<Planned>,
    result: RunResult,
    events: EventLog,
}

/// One line for the model reading the answer: how the run ended, and why.
fn result_line(result: &RunResult) -> String {
    let mut line = format!(
        "run {} {}: {}",
        result.run_id,
        result.status.as_str(),
        result.summary
    );
    if let Some(e) = &result.error {
        let kind = serde_json::to_value(e.kind).unwrap_or(Value::Null);
        line.push_str(&format!(
            "\n{}: {}",
            kind.as_str().unwrap_or("error"),
            e.message
        ));
    }
    if !result.warnings.is_empty() {
        line.push_str(&format!("\n{} warning(s)", result.warnings.len()));
    }
    line
}

/// What the answers say about who answered.
fn answers_line(answers: &[Answer]) -> Option<String> {
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

impl Tools {
    async fn plan(&self, request: &CallToolRequestParams) -> Result<CallToolResult, ApiError> {
        let body: PlansBody = arguments(request)?;
        let (goal, ask, dry_run) = body.read(&self.state)?;
        if dry_run {
            self.state.accepting()?;
            let config = self.state.planner()?;
            let _permit = self.state.planning_permit()?;
            let (locked, _) = routes::lock_and_look(&self.state, goal, &ask, false).await?;
            let preview = PlanPreview {
                request: locked.preview(config),
            };
            let text = serde_json::to_string_pretty(&preview.request).unwrap_or_default();
            return Ok(answer(&json!({"preview": preview}), text));
        }
        let planning = routes::plan_goal(&self.state, goal, &ask, false).await?;
        let answers = planning.request.answers(&planning.outcome.plan, &[]);
        let planned = Planned::of(&planning.request, planning.outcome, answers);
        let text = planned.review.text.clone();
        Ok(answer(&json!({"planning": planned}), text))
    }

    async fn act(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ApiError> {
        let body: ActBody = arguments(request)?;
        let (goal, ask) = body.read(&self.state)?;
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
        let (planning, asked) = match resumed {
            Some(w) => {
                let asked = answered(&w.planning, request.input_responses.as_ref())?;
                (w.planning, asked)
            }
            None => {
                let planning = routes::plan_goal(&self.state, goal, &ask, true).await?;
                let open = planning
                    .request
                    .open_questions(&planning.outcome.plan)
                    .len();
                match how_to_ask(context) {
                    Asking::None => (planning, Vec::new()),
                    _ if open == 0 => (planning, Vec::new()),
                    Asking::Retry => return Ok(self.ask_by_retry(planning, caller).into()),
                    Asking::Request => {
                        let asked = ask_by_request(&planning, context).await?;
                        (planning, asked)
                    }
                }
            }
        };
        let Planning {
            request: locked,
            outcome,
        } = planning;
        let answers = locked.answers(&outcome.plan, &asked);
        let spec = locked.run(outcome.plan.clone(), &answers)?;
        let planned = Planned::of(&locked, outcome, answers);
        let launch = runs::prepare(&self.state, spec.named("act"), ask).await?;
        let launch = Launch {
            prelude: Some(PlannedLine {
                event: PlannedTag::Planned,
                planned: planned.clone(),
            }),
            ..launch
        };
        let mut text = planned.review.text.clone();
        if let Some(line) = answers_line(&planned.answers) {
            text.push_str(&format!("\n{line}\n"));
        }
        let (result, events) = self.follow(launch, context).await?;
        text.push('\n');
        text.push_str(&result_line(&result));
        let ran = Ran {
            planning: Some(planned),
            events,
            result,
        };
        Ok(answer(&ran, text).into())
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

    async fn run_plan(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ApiError> {
        let body: RunBody = arguments(request)?;
        let (plan, ask) = body.read(&self.state)?;
        self.state.accepting()?;
        let spec = runs::replay_spec(&self.state, plan, &ask);
        let launch = runs::prepare(&self.state, spec, ask).await?;
        let (result, events) = self.follow(launch, context).await?;
        let text = result_line(&result);
        let ran = Ran {
            planning: None,
            result,
            events,
        };
        Ok(answer(&ran, text))
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
        } = runs::start(&self.state, &caller_of(&self.state, context), launch, true).await?;
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
                let Some(bytes) = next else {
                    // The stream is over; the result is (about to be) stored.
                    let _ = done.wait_for(Option::is_some).await;
                    return done.borrow().clone();
                };
                let Ok(line) = serde_json::from_slice::<Value>(&bytes) else {
                    continue;
                };
                match line["event"].as_str() {
                    Some("planned") => continue,
                    Some("result") => {
                        let _ = done.wait_for(Option::is_some).await;
                        return done.borrow().clone();
                    }
                    _ => count += 1,
                }
                if let (Some(token), Some(message)) =
                    (&token, progress_message(&line, total, &run_id))
                {
                    let index = line["index"].as_u64().unwrap_or(0) as f64;
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(token.clone(), index + 1.0)
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
                routes::cancel(&self.state, &run_id).await?;
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

    async fn get_run(&self, request: &CallToolRequestParams) -> Result<CallToolResult, ApiError> {
        let id = run_id(request)?;
        let run = self
            .state
            .store()
            .get(&id)
            .await?
            .ok_or_else(|| routes::unknown_run(&id))?;
        let view = runs::view(&self.state, &run).await?;
        let text = view_line(&view);
        Ok(answer(&json!({"run": view}), text))
    }

    async fn cancel_run(
        &self,
        request: &CallToolRequestParams,
    ) -> Result<CallToolResult, ApiError> {
        let id = run_id(request)?;
        let (_, view) = routes::cancel(&self.state, &id).await?;
        let text = view_line(&view);
        Ok(answer(&json!({"run": view}), text))
    }
}

/// Who asks, as the HTTP API counts callers: a server with a token has let in only its
/// holders; else the client's address (over HTTP); over stdio, the one client.
fn caller_of(state: &AppState, context: &RequestContext<RoleServer>) -> Caller {
    if state.token().is_some() {
        return Caller::Token;
    }
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| {
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        })
        .map_or(Caller::Unknown, |axum::extract::ConnectInfo(peer)| {
            Caller::Address(peer.ip().to_canonical())
        })
}

fn view_line(view: &RunView) -> String {
    match view {
        RunView::Ended(ended) => result_line(&ended.result),
        RunView::InFlight(progress) => {
            serde_json::to_string(progress).unwrap_or_else(|_| "in flight".into())
        }
    }
}

fn run_id(request: &CallToolRequestParams) -> Result<String, ApiError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Id {
        id: String,
    }
    Ok(arguments::<Id>(request)?.id)
}

/// "run ID step 2 of 7: the Email field", or "run ID step 5 of 7: waiting for mail": the
/// run's id first, for `get_run` and `cancel_run`.
fn progress_message(line: &Value, total: usize, run_id: &str) -> Option<String> {
    let index = line["index"].as_u64()? + 1;
    match line["event"].as_str()? {
        "step_started" => {
            let step_type = line["type"].as_str().unwrap_or_default();
            let reads_mail = serde_json::from_value::<StepType>(line["type"].clone())
                .is_ok_and(StepType::reads_mail);
            let what = match line["describe"].as_str() {
                _ if reads_mail => "waiting for mail",
                Some(describe) => describe,
                None => step_type,
            };
            Some(format!("run {run_id} step {index} of {total}: {what}"))
        }
        "step_failed" => Some(format!("run {run_id} step {index} of {total} failed")),
        _ => None,
    }
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

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("planlock", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "planlock runs browser tasks with a verdict you can trust: `act` plans a goal \
                 (naming its site) with one model call and runs it inside a lock fixed from \
                 the request; `plan` only plans; `run_plan` replays a plan with no model. A \
                 run's `result.status` is succeeded, failed (with `error.message`, a sentence \
                 saying what was looked for and found) or cancelled.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let answered = match request.name.as_ref() {
            "plan" => self.plan(&request).await.map(Into::into),
            "act" => self.act(&request, &context).await,
            "run_plan" => self.run_plan(&request, &context).await.map(Into::into),
            "get_run" => self.get_run(&request).await.map(Into::into),
            "cancel_run" => self.cancel_run(&request).await.map(Into::into),
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "there is no tool `{other}`: the tools are plan, act, run_plan, \
                         get_run and cancel_run"
                    ),
                    None,
                ));
            }
        };
        Ok(answered.unwrap_or_else(|e| failed(e).into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_input_and_output_schema_whose_refs_resolve() {
        for tool in tools() {
            let output = tool.output_schema.as_ref().expect("an output schema");
            for schema in [tool.input_schema.as_ref(), output.as_ref()] {
                assert_eq!(schema["type"], "object", "{}", tool.name);
                let text = Value::Object(schema.clone()).to_string();
                assert!(!text.contains("#/components/"), "{}", tool.name);
                for name in text.split("\"#/$defs/").skip(1) {
                    let name = name.split('"').next().unwrap_or_default();
                    assert!(
                        schema["$defs"].get(name).is_some(),
                        "{}: {name} is not defined",
                        tool.name
                    );
                }
            }
        }
    }

    #[test]
    fn a_tool_error_is_the_apis_error_body() {
        let invalid = ApiError::invalid_plan(&crate::plan::PlanError::Invalid(vec![
            crate::plan::Problem::new("steps[0].url", "not absolute"),
        ]));
        let api_body = serde_json::to_value(invalid.body()).unwrap();
        let result = failed(invalid);
        assert_eq!(result.is_error, Some(true));
        let text = &result.content[0].as_text().expect("text").text;
        let body: Value = serde_json::from_str(text).unwrap();
        assert_eq!(body, api_body);
        assert_eq!(body["error"]["kind"], "invalid_plan");
    }

    #[test]
    fn progress_says_the_step_and_when_it_waits_for_mail() {
        let line = json!({"event": "step_started", "index": 1, "type": "fill", "describe": "the Email field"});
        assert_eq!(
            progress_message(&line, 5, "r1").as_deref(),
            Some("run r1 step 2 of 5: the Email field")
        );
        let line = json!({"event": "step_started", "index": 3, "type": "wait_for_email"});
        assert_eq!(
            progress_message(&line, 5, "r1").as_deref(),
            Some("run r1 step 4 of 5: waiting for mail")
        );
        let done = json!({"event": "step_succeeded", "index": 0});
        assert_eq!(progress_message(&done, 5, "r1"), None);
    }
}
