//! The one way from a goal to a run, for every front end (the command line's `act`, `plan`
//! and `run`, the HTTP API, the MCP tools):
//!
//! 1. [`Request::lock`]: the goal checked, the lock fixed from it and the allowed hosts;
//! 2. [`LockedRequest::look`]: the start page, read inside that lock;
//! 3. [`LockedRequest::plan`]: one model call (none when cached);
//! 4. [`LockedRequest::answers`] and [`LockedRequest::review`]: the plan's questions
//!    answered, the plan shown with the lock it runs in;
//! 5. [`LockedRequest::run`]: the [`RunSpec`], inside that lock;
//! 6. [`run::lock_run`]: secrets, the inboxes bound inside that lock, the run locked (a
//!    replayed plan joins here, its lock made from its `navigate` URLs);
//! 7. [`run::ready`]: the inboxes reachable and the browser ready; the front end starts it.
//!
//! The lock is made once, from the request, before any page is read: the look, the
//! planner, the review, the run and its side destinations (its mailboxes, its webhook) all
//! read that one lock, so the review shows the lock the run gets, and a plan the start page
//! may have shaped cannot widen where the run goes.

pub mod run;

use std::net::SocketAddr;

use serde::Serialize;

use crate::browser::{Chromium, Look};
use crate::lock::{AddressPolicy, Lock, LockError, LockRequest};
use crate::plan::{Limits, Plan, Question, Vars, VarsError};
use crate::planner::goal::{self, Goal};
use crate::planner::{
    self, GeneratedPlan, LookChoice, LookFailure, PlanRequest, PlannerConfig, PlannerError, Review,
};
use crate::runner::{RunSpec, Secrets};

/// What a caller asks for: a goal and what its run may use. Nothing in it is checked yet;
/// [`Request::lock`] checks it and fixes the lock.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// What to do, naming the site.
    pub goal: String,
    /// Caller variables (`{{NAME}}`): the model learns their names, never their values.
    pub vars: Vars,
    /// Where the run's secrets come from. The model never reads one: every value they may
    /// give is masked where the start page echoes it, before the plan says which it uses.
    pub secrets: Secrets,
    /// The inboxes the run binds, by name (`None`: the default inbox). Only which ones
    /// matters here; the front end connects them for the run.
    pub inboxes: Vec<Option<String>>,
    /// The run's inbox address when the caller knows it (`planlock plan --inbox-address`):
    /// where the goal mentions it, the model reads `{{inbox_address}}`.
    pub inbox_address: Option<String>,
    /// Where the run may go besides the sites the goal names: the lock is made of the goal
    /// and this.
    pub reach: Reach,
    pub limits: Limits,
    /// Ask the model even if the plan cache has the plan.
    pub no_cache: bool,
    /// Whether the planner is shown the start page.
    pub look: LookChoice,
}

/// What a request lets its run reach besides the sites its goal names: read when the lock
/// is made, and again by the run, which resolves hosts under the same rule.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Hosts the caller allows besides those the goal names.
    pub allowed_hosts: Vec<String>,
    /// Whether private, loopback and link-local addresses may be visited.
    pub policy: AddressPolicy,
    /// The addresses of the service making this request: never reached.
    pub service_addresses: Vec<SocketAddr>,
}

/// Why a request cannot be locked.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The goal is empty or names no site.
    #[error(transparent)]
    Goal(PlannerError),
    /// The lock cannot be built as asked (a bad allowed host, a private address).
    #[error(transparent)]
    Lock(LockError),
}

impl Request {
    /// A request for `goal` with nothing else given.
    pub fn new(goal: impl Into<String>) -> Request {
        Request {
            goal: goal.into(),
            ..Request::default()
        }
    }

    /// Checks the goal and fixes the lock, before any page or email is read: the sites the
    /// goal names (its caller variables filled in) and the allowed hosts, under the address
    /// policy. This is the only lock the look, the planner, the review and the run get.
    pub async fn lock(self) -> Result<LockedRequest, RequestError> {
        let inbox_address = match &self.inbox_address {
            Some(address) => Some(address.clone()),
            None if self.inboxes.contains(&None) => Some("{{inbox_address}}".to_string()),
            None => None,
        };
        let prepared = goal::prepare_with(&self.goal, inbox_address.as_deref(), &self.vars)
            .map_err(RequestError::Goal)?;
        let rendered = goal::rendered(&prepared.normalised, &self.vars);
        let lock = Lock::build(&LockRequest {
            goal: Some(&rendered),
            urls: Vec::new(),
            allow_hosts: &self.reach.allowed_hosts,
            policy: self.reach.policy,
            service_addresses: &self.reach.service_addresses,
        })
        .await
        .map_err(RequestError::Lock)?;
        Ok(LockedRequest {
            prepared,
            inbox_address,
            lock,
            look: None,
            request: self,
        })
    }
}

/// A request whose lock is fixed: everything after this reads the same lock.
#[derive(Debug, Clone)]
pub struct LockedRequest {
    request: Request,
    prepared: Goal,
    inbox_address: Option<String>,
    lock: Lock,
    look: Option<Look>,
}

/// How a question the plan asks got its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AnswerSource {
    /// The request's variables gave it.
    Given,
    /// A person (or the client, asking its user) answered.
    Asked,
    /// Nobody answered: the plan's suggestion was taken.
    Suggested,
}

/// A question the plan asked, and the value its `{{var}}` has in the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Answer {
    pub var: String,
    pub ask: String,
    pub value: String,
    pub source: AnswerSource,
}

impl LockedRequest {
    /// Where the run may go, fixed from the request.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// The goal as given.
    pub fn goal(&self) -> &str {
        &self.request.goal
    }

    /// The caller's variables.
    pub fn vars(&self) -> &Vars {
        &self.request.vars
    }

    /// Whether planning looks at the start page (a browser is needed for it).
    pub fn wants_look(&self) -> bool {
        self.request.look != LookChoice::Blind
    }

    /// Whether the request insists on the look (no plan without it).
    pub fn look_required(&self) -> bool {
        self.request.look == LookChoice::Required
    }

    /// Looks at the goal's start page in a fresh context of `browser`, under the request's
    /// lock. A look that fails is returned as `Ok(Some(why))` and planning goes on blind,
    /// unless the request required the look (then it is the error).
    pub async fn look(&mut self, browser: &Chromium) -> Result<Option<LookFailure>, LookFailure> {
        if !self.wants_look() {
            return Ok(None);
        }
        let looked = match planner::start_page(&self.request.goal, &self.request.vars) {
            Some(url) => planner::look_within(browser, url, self.lock.clone()).await,
            None => Err(LookFailure::NoStartPage),
        };
        match looked {
            Ok(look) => {
                self.look = Some(look);
                Ok(None)
            }
            Err(e) if self.request.look == LookChoice::Required => Err(e),
            Err(e) => Ok(Some(e)),
        }
    }

    /// The start page as the look read it, once [`look`](Self::look) succeeded.
    pub fn looked_page(&self) -> Option<&Look> {
        self.look.as_ref()
    }

    /// The planner's request: what it is told of the run, and the look.
    pub fn plan_request(&self, config: PlannerConfig) -> PlanRequest {
        let mut req = PlanRequest::new(config);
        req.inbox_address = self.inbox_address.clone();
        req.inbox_names = self.request.inboxes.iter().flatten().cloned().collect();
        req.vars = self.request.vars.clone();
        req.secrets = self.request.secrets.values();
        req.limits = self.request.limits.clone();
        req.no_cache = self.request.no_cache;
        req.look = self.look.clone();
        req
    }

    /// The sites the model is told the run may visit: the lock's, the goal's own first.
    fn sites_for_model(&self) -> Vec<String> {
        let site = &self.prepared.site;
        let mut sites: Vec<String> = self.lock.sites().collect();
        sites.sort_by_key(|s| {
            !(s == site
                || s.strip_prefix(site.as_str())
                    .is_some_and(|p| p.starts_with(':')))
        });
        sites
    }

    /// The user message the planner's model would get (the goal, the hosts, the variables'
    /// names and the look's outline, masked as the model is shown it), and what it was shown
    /// of the page: what an agent that writes the plan itself is shown, by the same way.
    pub fn planner_message(&self) -> (String, Option<planner::Looked>) {
        let req = self.plan_request(PlannerConfig::default());
        planner::user_message_prepared(&self.prepared, &self.sites_for_model(), &req)
    }

    /// Plans with one model call (none when the cache has the plan).
    pub async fn plan(&self, config: PlannerConfig) -> Result<GeneratedPlan, PlannerError> {
        let req = self.plan_request(config);
        planner::plan_prepared(self.prepared.clone(), &self.sites_for_model(), &req).await
    }

    /// The exact request planning would send, without sending it.
    pub fn preview(&self, config: PlannerConfig) -> serde_json::Value {
        let req = self.plan_request(config);
        planner::preview_prepared(&self.prepared, &self.sites_for_model(), &req)
    }

    /// The plan's questions the request's variables do not answer: a front end asks them (a
    /// person at a terminal, an MCP client) or leaves them to their suggestions.
    pub fn open_questions<'p>(&self, plan: &'p Plan) -> Vec<&'p Question> {
        plan.questions
            .iter()
            .filter(|q| self.request.vars.value(&q.var).is_none())
            .collect()
    }

    /// Every question of the plan with its value: the request's variable, else what was
    /// `asked` (var, value), else the suggestion.
    pub fn answers(&self, plan: &Plan, asked: &[(String, String)]) -> Vec<Answer> {
        plan.questions
            .iter()
            .map(|q| {
                let (value, source) = match self.request.vars.value(&q.var) {
                    Some(v) => (v.to_string(), AnswerSource::Given),
                    None => match asked.iter().find(|(var, _)| *var == q.var) {
                        Some((_, v)) => (v.clone(), AnswerSource::Asked),
                        None => (q.suggested.clone(), AnswerSource::Suggested),
                    },
                };
                Answer {
                    var: q.var.clone(),
                    ask: q.ask.clone(),
                    value,
                    source,
                }
            })
            .collect()
    }

    /// The review of `plan` inside this request's lock, with the answers beside the steps
    /// that use them.
    pub fn review(&self, plan: &Plan, answers: &[Answer]) -> Review {
        let pairs: Vec<(String, String)> = answers
            .iter()
            .map(|a| (a.var.clone(), a.value.clone()))
            .collect();
        planner::review_in(plan, &self.lock, &pairs)
    }

    /// The run of `plan` inside this request's lock, its questions answered: a spec the
    /// front end completes (name, secrets, inboxes, settings) and locks. The plan's
    /// `navigate` URLs do not add to the lock.
    pub fn run(&self, plan: Plan, answers: &[Answer]) -> Result<RunSpec, VarsError> {
        let mut vars = self.request.vars.clone();
        for a in answers.iter().filter(|a| a.source != AnswerSource::Given) {
            vars.insert(&a.var, &a.value)?;
        }
        Ok(RunSpec::new(plan)
            .vars(vars)
            .address_policy(self.request.reach.policy)
            .service_addresses(self.request.reach.service_addresses.iter().copied())
            .within(self.lock.clone()))
    }
}
