//! What a caller asks of a run ([`RunSpec`]), and the run it becomes once everything the
//! request names is checked and fixed ([`LockedRun`]): variables, secrets, lock, inboxes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use url::Url;

use super::Settings;
use crate::inbox::Inbox;
use crate::lock::{AddressPolicy, Lock, LockError, LockRequest, sites_named};
use crate::plan::{self, Plan, SECRET_ENV_PREFIX, Step, StepType, Template, Vars, VarsError};

/// A mailbox bound to a run: `None` names the default inbox, `Some(name)` the one that steps
/// with `"inbox_id": name` read.
pub type Binding = (Option<String>, Arc<dyn Inbox>);

/// Where the values of `{{secret.NAME}}` come from. They are read when the run is locked,
/// never sent to a model, and masked in everything the run writes.
#[derive(Clone, Default)]
pub struct Secrets {
    given: BTreeMap<String, String>,
    environment: bool,
    bound: BTreeMap<String, BoundSecret>,
}

/// A secret its owner allowed to be sent to some sites only.
#[derive(Clone)]
struct BoundSecret {
    value: String,
    sites: BTreeSet<String>,
}

impl Secrets {
    /// No secrets: a plan that uses one is refused.
    pub fn none() -> Secrets {
        Secrets::default()
    }

    /// From the environment: `{{secret.NAME}}` is `$PLANLOCK_SECRET_NAME`.
    pub fn from_environment() -> Secrets {
        Secrets {
            environment: true,
            ..Secrets::default()
        }
    }

    /// These values first (by name, without the prefix), then whatever else this source had.
    pub fn with_given(mut self, given: BTreeMap<String, String>) -> Secrets {
        self.given.extend(given);
        self
    }

    /// A secret that may only be sent to `hosts`: a run that uses it is refused when its
    /// lock reaches any other site. Each host stands for its site, as in the lock, so
    /// `accounts.shop.example` allows all of `shop.example`. Values given with
    /// [`with_given`](Self::with_given) under the same name take precedence and are not bound.
    pub fn with_bound(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
        hosts: &[String],
    ) -> Result<Secrets, LockError> {
        let sites = sites_named(None, hosts)?.into_iter().collect();
        self.bound.insert(
            name.into(),
            BoundSecret {
                value: value.into(),
                sites,
            },
        );
        Ok(self)
    }

    fn lookup(&self, env_key: &str) -> Option<String> {
        let name = env_key.strip_prefix(SECRET_ENV_PREFIX)?;
        self.given
            .get(name)
            .cloned()
            .or_else(|| self.bound.get(name).map(|b| b.value.clone()))
            .or_else(|| self.environment.then(|| std::env::var(env_key).ok())?)
    }

    /// Every value this source may give a run: the given ones, the bound ones and, from the
    /// environment, each `PLANLOCK_SECRET_*` variable's. A start page may echo any of them
    /// before a plan says which it uses, so the look masks them all.
    pub fn values(&self) -> Vec<String> {
        let mut values: Vec<String> = self.given.values().cloned().collect();
        values.extend(self.bound.values().map(|b| b.value.clone()));
        if self.environment {
            values.extend(std::env::vars_os().filter_map(|(name, value)| {
                let named = name.to_str()?.starts_with(SECRET_ENV_PREFIX);
                named.then(|| value.into_string().ok())?
            }));
        }
        values.retain(|v| !v.is_empty());
        values
    }

    /// The sites a secret is bound to, when the value in use is a bound one.
    fn bound_sites(&self, name: &str) -> Option<&BTreeSet<String>> {
        if self.given.contains_key(name) {
            return None;
        }
        self.bound.get(name).map(|b| &b.sites)
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secrets")
            .field("given", &self.given.keys().collect::<Vec<_>>())
            .field("environment", &self.environment)
            .field("bound", &self.bound.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Everything a caller asks of one run, as given: the plan and what it may use. Nothing in
/// it has been checked yet; [`RunSpec::lock`] checks it all and fixes the run's lock.
///
/// ```no_run
/// # async fn demo(plan: planlock::Plan) -> Result<(), planlock::SpecError> {
/// let run = planlock::RunSpec::new(plan)
///     .named("signup.json")
///     .allow_host("accounts.shop.example")
///     .lock()
///     .await?;
/// assert!(run.lock().sites().any(|s| s == "shop.example"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RunSpec {
    plan: Plan,
    name: Option<String>,
    goal: Option<String>,
    run_id: Option<String>,
    vars: Vars,
    secrets: Secrets,
    allow_hosts: Vec<String>,
    inboxes: Vec<Binding>,
    policy: AddressPolicy,
    service_addresses: Vec<SocketAddr>,
    settings: Settings,
    /// A lock fixed before the plan existed (see [`RunSpec::within`]).
    fixed: Option<Lock>,
}

impl RunSpec {
    /// A run of `plan` with no variables, secrets, inboxes or extra hosts, default settings.
    pub fn new(plan: Plan) -> RunSpec {
        RunSpec {
            plan,
            name: None,
            goal: None,
            run_id: None,
            vars: Vars::default(),
            secrets: Secrets::none(),
            allow_hosts: Vec::new(),
            inboxes: Vec::new(),
            policy: AddressPolicy::Open,
            service_addresses: Vec::new(),
            settings: Settings::default(),
            fixed: None,
        }
    }

    /// Runs inside `lock`, made from the request before the plan was written (`act`: the
    /// goal and the allowed hosts, before the start page was read). The plan's `navigate`
    /// URLs do not add to it, so a plan that page text may have shaped cannot widen where
    /// the run goes; a step outside it is refused when it runs. The goal, allowed hosts,
    /// address policy and service addresses given to this spec are then not used for the
    /// lock: they made `lock`.
    pub fn within(mut self, lock: Lock) -> RunSpec {
        self.fixed = Some(lock);
        self
    }

    /// The plan's file name or label, for reports.
    pub fn named(mut self, name: impl Into<String>) -> RunSpec {
        self.name = Some(name.into());
        self
    }

    /// The goal the plan was made from: the hosts it names are allowed too.
    pub fn goal(mut self, goal: impl Into<String>) -> RunSpec {
        self.goal = Some(goal.into());
        self
    }

    /// The run's id (default: a fresh one, see [`new_run_id`](super::new_run_id)).
    pub fn run_id(mut self, run_id: impl Into<String>) -> RunSpec {
        self.run_id = Some(run_id.into());
        self
    }

    /// Caller variables (`{{NAME}}`).
    pub fn vars(mut self, vars: Vars) -> RunSpec {
        self.vars = vars;
        self
    }

    /// Where `{{secret.NAME}}` values come from.
    pub fn secrets(mut self, secrets: Secrets) -> RunSpec {
        self.secrets = secrets;
        self
    }

    /// Also allow this host (and the rest of its site).
    pub fn allow_host(self, host: impl Into<String>) -> RunSpec {
        self.allow_hosts([host])
    }

    /// Also allow these hosts.
    pub fn allow_hosts<I, S>(mut self, hosts: I) -> RunSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Binds a mailbox: `None` for the default inbox, `Some(name)` for `inbox_id: name`.
    pub fn inbox(self, name: Option<&str>, inbox: Arc<dyn Inbox>) -> RunSpec {
        self.inboxes([(name.map(str::to_string), inbox)])
    }

    /// Binds several mailboxes.
    pub fn inboxes(mut self, bindings: impl IntoIterator<Item = Binding>) -> RunSpec {
        self.inboxes.extend(bindings);
        self
    }

    /// Whether private, loopback and link-local addresses may be visited.
    pub fn address_policy(mut self, policy: AddressPolicy) -> RunSpec {
        self.policy = policy;
        self
    }

    /// The addresses the service running this spec listens on: the run never reaches them,
    /// not even for a sub-resource.
    pub fn service_addresses(mut self, addresses: impl IntoIterator<Item = SocketAddr>) -> RunSpec {
        self.service_addresses.extend(addresses);
        self
    }

    /// Deadlines, artifacts, wrapping of untrusted text.
    pub fn settings(mut self, settings: Settings) -> RunSpec {
        self.settings = settings;
        self
    }

    /// The plan to run.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The run's lock, fixed now (unless [`within`](Self::within) fixed it) and kept for
    /// [`lock`](Self::lock): the request's own lock, which the front end judges the run's
    /// side destinations by (its webhook, the mailboxes the request brings) before it binds
    /// the inboxes; the spec is returned with it. Checks what the lock is made of: variables,
    /// secrets, `navigate` URLs.
    pub async fn fix_lock(mut self) -> Result<(RunSpec, Lock), SpecError> {
        let lock = match &self.fixed {
            Some(lock) => lock.clone(),
            None => {
                let (_, urls, _) = self.checked(false)?;
                self.fixed.insert(self.built_lock(urls).await?).clone()
            }
        };
        Ok((self, lock))
    }

    /// Checks everything the request names and fixes the run's lock, before any page or
    /// email is read: secrets are loaded, `navigate` URLs are checked with caller variables
    /// filled in, the lock is built from the goal, those URLs and the allowed hosts, and every
    /// inbox step must name a bound inbox.
    pub async fn lock(mut self) -> Result<LockedRun, SpecError> {
        let (vars, urls, names) = self.checked(true)?;
        let lock = match self.fixed.take() {
            Some(lock) => lock,
            None => self.built_lock(urls).await?,
        };
        for name in &names {
            let Some(secret) = name.strip_prefix("secret.") else {
                continue;
            };
            if let Some(bound) = self.secrets.bound_sites(secret)
                && let Some(site) = lock
                    .sites()
                    .find(|s| !bound.contains(s) && !bound.contains(without_port(s)))
            {
                return Err(SpecError::SecretOutsideLock {
                    secret: secret.to_string(),
                    site: site.to_string(),
                    allowed: bound.iter().cloned().collect(),
                });
            }
        }
        Ok(LockedRun {
            plan: self.plan,
            name: self.name,
            run_id: self.run_id.unwrap_or_else(super::new_run_id),
            lock,
            vars,
            inboxes: self.inboxes,
            settings: self.settings,
        })
    }

    /// The variables with secrets loaded, the `navigate` URLs (checked), and every variable
    /// the plan uses; with `inboxes`, also that each inbox step has its inbox bound.
    fn checked(&self, inboxes: bool) -> Result<(Vars, Vec<Url>, Vec<String>), SpecError> {
        let mut vars = self.vars.clone();
        // A question nobody answered takes its suggested answer.
        for q in &self.plan.questions {
            if vars.value(&q.var).is_none() {
                vars.insert(&q.var, &q.suggested)
                    .map_err(SpecError::Variable)?;
            }
        }
        let names = variables_of(&self.plan);
        vars.load_secrets(names.iter().map(String::as_str), |key| {
            self.secrets.lookup(key)
        })
        .map_err(SpecError::Variable)?;
        vars.learn_secret_neighbours(&self.plan);
        let mut urls = Vec::new();
        for (index, step) in self.plan.steps.iter().enumerate() {
            if let Step::Navigate { url, .. } = step {
                // `{{run_id}}` and `{{inbox_address}}` are not known yet; they cannot name a
                // host, so the URL as written is checked instead.
                let url = Template::parse(url)
                    .ok()
                    .and_then(|t| t.render(&vars).ok())
                    .unwrap_or_else(|| url.clone());
                plan::check_navigate_url(&url).map_err(|problem| SpecError::NavigateUrl {
                    step: index,
                    url: vars.masker().mask(&url),
                    problem,
                })?;
                if let Ok(parsed) = Url::parse(&url) {
                    urls.push(parsed);
                }
            }
            if !inboxes {
                continue;
            }
            if self.inboxes.is_empty() && uses_inbox_address(step) {
                return Err(SpecError::NoInboxAddress { step: index });
            }
            if let Some(id) = step.inbox()
                && !self.inboxes.iter().any(|(name, _)| name.as_deref() == id)
            {
                return Err(SpecError::UnboundInbox {
                    step: index,
                    step_type: step.kind(),
                    inbox: id.map(str::to_string),
                });
            }
        }
        Ok((vars, urls, names))
    }

    /// The lock of the goal, `urls` and the allowed hosts, under the address policy.
    async fn built_lock(&self, urls: Vec<Url>) -> Result<Lock, SpecError> {
        Lock::build(&LockRequest {
            goal: self.goal.as_deref(),
            urls,
            allow_hosts: &self.allow_hosts,
            policy: self.policy,
            service_addresses: &self.service_addresses,
        })
        .await
        .map_err(SpecError::Lock)
    }
}

/// Whether a step types or visits `{{inbox_address}}`.
fn uses_inbox_address(step: &Step) -> bool {
    step.strings()
        .into_iter()
        .filter_map(|(_, v)| Template::parse(&v).ok())
        .any(|t| t.variables().any(|v| v == "inbox_address"))
}

/// A lock key's host: `127.0.0.1:8080` → `127.0.0.1`, `[::1]:3000` → `::1`; a site as it is.
fn without_port(key: &str) -> &str {
    if let Some(inner) = key.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    match key.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            host
        }
        _ => key,
    }
}

/// Every `{{variable}}` a plan uses, in step order.
fn variables_of(plan: &Plan) -> Vec<String> {
    plan.steps
        .iter()
        .flat_map(|s| s.strings().into_iter().map(|(_, v)| v.clone()))
        .filter_map(|s| Template::parse(&s).ok())
        .flat_map(|t| t.variables().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// A run ready to start: its request checked, its lock fixed. Only [`run`](super::run)
/// consumes it.
pub struct LockedRun {
    pub(super) plan: Plan,
    pub(super) name: Option<String>,
    pub(super) run_id: String,
    pub(super) lock: Lock,
    /// Caller variables and secrets, loaded.
    pub(super) vars: Vars,
    pub(super) inboxes: Vec<Binding>,
    pub(super) settings: Settings,
}

impl LockedRun {
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Where this run may go, fixed for its life.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The plan's file name or label.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The inboxes bound to this run.
    pub fn inboxes(&self) -> &[Binding] {
        &self.inboxes
    }

    /// Changes where failure screenshots go (a service keeps them per run id).
    pub fn set_artifacts_dir(&mut self, dir: std::path::PathBuf) {
        self.settings.artifacts_dir = Some(dir);
    }
}

/// Why a request cannot become a run. Each front end says where the value came from
/// (a flag, a request field); the sentence says what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A variable or secret the plan uses has no value.
    #[error(transparent)]
    Variable(VarsError),
    /// A `navigate` URL, once caller variables are filled in, is not an absolute http(s) URL.
    #[error("steps[{step}].url: {problem}")]
    NavigateUrl {
        step: usize,
        url: String,
        problem: String,
    },
    /// The lock cannot be built as asked.
    #[error(transparent)]
    Lock(LockError),
    /// A secret bound to some sites is used by a run whose lock reaches another site.
    #[error(
        "`{{{{secret.{secret}}}}}` may only be sent to {}, but this run may also visit {site}: \
         a run that uses this secret may only visit the sites it is bound to",
        .allowed.join(", ")
    )]
    SecretOutsideLock {
        secret: String,
        /// The first site of the lock the secret is not bound to.
        site: String,
        /// The sites the secret is bound to.
        allowed: Vec<String>,
    },
    /// A step uses `{{inbox_address}}`, but the request binds no inbox to give it a value.
    #[error("steps[{step}] uses {{{{inbox_address}}}}, but no inbox is bound to this run")]
    NoInboxAddress { step: usize },
    /// A step reads mail from an inbox the request did not bind.
    #[error("{}", unbound_inbox(*.step, *.step_type, .inbox.as_deref()))]
    UnboundInbox {
        step: usize,
        step_type: StepType,
        /// `None`: the default inbox.
        inbox: Option<String>,
    },
}

fn unbound_inbox(step: usize, step_type: StepType, inbox: Option<&str>) -> String {
    match inbox {
        Some(name) => format!("steps[{step}].inbox_id: no inbox named \"{name}\" is bound"),
        None => format!("steps[{step}] ({step_type}) reads email, but no inbox is bound"),
    }
}
