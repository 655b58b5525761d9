//! MCP: the service's tools for agents, over stdio (`planlock mcp`) and streamable HTTP
//! (`/mcp` on `planlock serve`), with the planner's guidance as a prompt and the plan's
//! JSON Schema as a resource.
//!
//! An agent is the planner: `look` shows it the start page as planlock's planner would be
//! shown it (the same path: the lock fixed first, the same masking and withholding),
//! `validate_plan` checks what it wrote, `run_plan` runs it. `act` and `plan` plan with the
//! server's own model instead. Each tool reads a request body of the HTTP API and goes
//! through the same pipeline and run queue, so the lock, secrets and inbox rules are the
//! API's. A run reports each step as a progress notification, or with `wait: false` answers
//! its id at once for `get_run` (which long-polls) and `cancel_run`. The MCP tasks extension
//! is not offered: the clients' SDKs do not take it yet, and these tools cover it.

mod asking;
mod planning;
mod running;
mod schema;
mod text;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{ApiError, ApiErrorKind};
use super::planning::Planning;
use super::request::ReadBody;
use super::state::{AppState, Caller};

pub use planning::writing_guide;
pub use schema::tools;

/// The resource holding the plan's JSON Schema.
const PLAN_SCHEMA_URI: &str = "planlock://schema/plan.json";
/// The resource holding what `server_info` answers.
const SERVER_INFO_URI: &str = "planlock://server-info.json";

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

    /// The arguments read as the endpoint reads its body, then against this server.
    fn read<B: ReadBody>(&self, request: &CallToolRequestParams) -> Result<B::Read, ApiError> {
        arguments::<B>(request)?.read(&self.state)
    }
}

/// The arguments read as the endpoint reads its body.
fn arguments<T: DeserializeOwned>(request: &CallToolRequestParams) -> Result<T, ApiError> {
    let value = Value::Object(request.arguments.clone().unwrap_or_default());
    serde_json::from_value(value).map_err(|e| {
        ApiError::new(
            ApiErrorKind::InvalidRequest,
            format!("the arguments are not valid: {e}"),
        )
    })
}

/// A tool's structured answer, with the text a model reads.
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

/// The `write_plan` prompt: the guide, and the goal when one is given.
fn write_plan_prompt() -> Prompt {
    let mut prompt = Prompt::new(
        "write_plan",
        Some(
            "How to write a planlock plan yourself: the ten steps with their fields, the rules, \
             one complete plan, and the loop (look, write, validate_plan, run_plan).",
        ),
        Some(vec![
            PromptArgument::new("goal")
                .with_description("What the plan should do, naming the site.")
                .with_required(false),
        ]),
    );
    prompt.title = Some("Write a planlock plan".into());
    prompt
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("planlock", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "planlock runs a JSON plan in a real browser with a real mailbox, with no model, \
             inside a lock on where it may go, and gives a verdict you can trust. Write the \
             plan yourself: server_info (how to write one, the inboxes), look (the start \
             page's outline), validate_plan, run_plan. Keep the plan: `planlock run plan.json` \
             replays it in CI.",
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
            "server_info" => match request.arguments.as_ref().filter(|a| !a.is_empty()) {
                Some(_) => Err(ApiError::new(
                    ApiErrorKind::InvalidRequest,
                    "server_info takes no arguments",
                )),
                None => Ok(self.server_info().into()),
            },
            "look" => self.look(&request).await.map(Into::into),
            "validate_plan" => self.validate_plan(&request).await.map(Into::into),
            "run_plan" => self.run_plan(request, &context).await.map(Into::into),
            "act" => self.act(request, &context).await,
            "plan" => self.plan(&request).await.map(Into::into),
            "get_run" => self.get_run(&request, &context).await.map(Into::into),
            "cancel_run" => self.cancel_run(&request).await.map(Into::into),
            other => {
                let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
                return Err(ErrorData::invalid_params(
                    format!(
                        "there is no tool `{other}`: the tools are {}",
                        names.join(", ")
                    ),
                    None,
                ));
            }
        };
        Ok(answered.unwrap_or_else(|e| failed(e).into()))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![write_plan_prompt()]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "write_plan" {
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no prompt `{}`: the prompt is write_plan",
                    request.name
                ),
                None,
            ));
        }
        let mut text = writing_guide();
        if let Some(goal) = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("goal"))
            .and_then(Value::as_str)
        {
            text.push_str(&format!(
                "\nThe goal: {goal}\nLook at its start page first (`look`), then write the \
                 plan, check it with `validate_plan` and run it with `run_plan`.\n"
            ));
        }
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        result.description = Some("How to write a planlock plan".into());
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let schema = Resource::new(PLAN_SCHEMA_URI, "plan.schema.json")
            .with_title("The plan's JSON Schema")
            .with_description(
                "The JSON Schema (draft 2020-12) of a plan, as `planlock schema` prints it.",
            )
            .with_mime_type("application/schema+json");
        let info = Resource::new(SERVER_INFO_URI, "server-info.json")
            .with_title("About this planlock server")
            .with_description("Its inbox names, the lock's defaults, limits and version.")
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![schema, info]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (text, mime) = match request.uri.as_str() {
            PLAN_SCHEMA_URI => (crate::plan::json_schema_text(), "application/schema+json"),
            SERVER_INFO_URI => (
                serde_json::to_string_pretty(&planning::server_info_json(&self.state))
                    .unwrap_or_default(),
                "application/json",
            ),
            other => {
                return Err(ErrorData::resource_not_found(
                    format!(
                        "there is no resource `{other}`: the resources are {PLAN_SCHEMA_URI} \
                         and {SERVER_INFO_URI}"
                    ),
                    None,
                ));
            }
        };
        let contents = ResourceContents::text(text, request.uri.clone()).with_mime_type(mime);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object_whose_refs_resolve_in_its_own_defs() {
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
                // Each definition is reached from the schema itself.
                if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
                    for name in defs.keys() {
                        assert!(
                            text.contains(&format!("\"#/$defs/{name}\"")),
                            "{}: {name} is defined but never used",
                            tool.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_tool_has_a_title_hints_and_a_description_without_the_http_api() {
        for tool in tools() {
            let annotations = tool.annotations.as_ref().expect("annotations");
            assert!(tool.title.is_some(), "{}", tool.name);
            assert!(annotations.read_only_hint.is_some(), "{}", tool.name);
            assert!(annotations.destructive_hint.is_some(), "{}", tool.name);
            assert!(annotations.open_world_hint.is_some(), "{}", tool.name);
            let description = tool.description.as_deref().unwrap_or_default();
            for http in ["POST ", "GET ", "/v1/", "422", "503"] {
                assert!(!description.contains(http), "{}: {description}", tool.name);
            }
            let text = Value::Object(tool.input_schema.as_ref().clone()).to_string();
            for http in ["POST /v1", "GET /v1", "/v1/act"] {
                assert!(!text.contains(http), "{}: {text}", tool.name);
            }
        }
    }

    #[test]
    fn the_tools_that_reach_hosts_say_that_loopback_needs_allowed_hosts() {
        for tool in tools() {
            let name = tool.name.as_ref();
            if ["look", "run_plan", "act"].contains(&name) {
                let description = tool.description.as_deref().unwrap_or_default();
                let lower = description.to_lowercase();
                assert!(
                    lower.contains("allowed_hosts") && lower.contains("loopback"),
                    "{name}: {description}"
                );
            }
        }
    }

    /// The bytes a host loads into every turn (the SDK's measure, through a real client, is in
    /// tests/it/mcp.rs): printed for the numbers, bounded here too.
    #[test]
    fn the_tool_list_fits_in_16_kb() {
        let list = serde_json::to_string(&ListToolsResult::with_all_items(tools())).unwrap();
        for tool in tools() {
            eprintln!(
                "{}: {} bytes",
                tool.name,
                serde_json::to_string(&tool).unwrap().len()
            );
        }
        eprintln!("tools/list result: {} bytes", list.len());
        if let Ok(path) = std::env::var("PLANLOCK_DUMP_TOOLS") {
            std::fs::write(path, &list).unwrap();
        }
        assert!(list.len() <= 16 * 1024, "{} bytes", list.len());
    }

    #[test]
    fn the_look_argument_takes_exactly_true_false_or_required() {
        let act = tools().into_iter().find(|t| t.name == "act").expect("act");
        let look = &act.input_schema["properties"]["look"];
        let text = look.to_string();
        assert!(text.contains("\"boolean\""), "{text}");
        assert!(text.contains("\"required\""), "{text}");
        assert!(!text.contains("\"object\""), "{text}");
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
        use serde_json::json;
        let event = |line: Value| -> crate::runner::Event {
            let mut line = line;
            line["run_id"] = json!("r1");
            line["ts"] = json!("2026-01-01T00:00:00.000Z");
            serde_json::from_value(line).unwrap()
        };
        let said = |line: Value| running::progress_message(&event(line), 5, "r1");
        assert_eq!(
            said(json!({"event": "step_started", "index": 1, "type": "fill",
                "describe": "the Email field", "detail": {}})),
            Some((2, "run r1 step 2 of 5: the Email field".to_string()))
        );
        assert_eq!(
            said(
                json!({"event": "step_started", "index": 3, "type": "wait_for_email",
                "describe": "the mail", "detail": {}})
            ),
            Some((4, "run r1 step 4 of 5: waiting for mail".to_string()))
        );
        assert_eq!(
            said(
                json!({"event": "step_succeeded", "index": 0, "type": "navigate",
                "describe": "open", "duration_ms": 1, "detail": {}})
            ),
            None
        );
    }

    #[test]
    fn the_guide_holds_the_planners_reference_and_a_valid_example() {
        let guide = writing_guide();
        assert!(guide.contains(crate::planner::prompt::writing_reference()));
        assert!(guide.contains(crate::planner::prompt::EXAMPLE_PLAN));
        for tool in ["look", "validate_plan", "run_plan", "planlock schema"] {
            assert!(
                guide.contains(&format!("`{tool}")),
                "the guide lacks {tool}"
            );
        }
    }
}
