//! Email verification end to end: real Chromium, the demo shop, and mail through a real
//! Dovecot (IMAP, plus-addressing) or planlock's embedded SMTP receiver.

use crate::util;

use std::net::SocketAddr;
use std::sync::Arc;

use crate::util::dovecot::{Dovecot, DovecotMailer};
use async_trait::async_trait;
use planlock::demo::{self, DemoSite, Mailer, SmtpMailer};
use planlock::inbox::Inbox;
use planlock::inbox::smtp::SmtpInbox;
use planlock::inbox::{connect, parse_url};
use planlock::plan::{Plan, Vars};
use planlock::runner::{self, RunResult, RunSpec};

/// Sends a decoy from another sender to the same address first, then the real mail.
struct DecoyFirst(Arc<dyn Mailer>);

#[async_trait]
impl Mailer for DecoyFirst {
    async fn send(&self, from: &str, to: &str, raw: Vec<u8>) -> Result<(), String> {
        let decoy = format!(
            "From: Other Shop <codes@other.test>\r\nTo: {to}\r\nSubject: Your verification code\r\n\
             Content-Type: text/plain\r\n\r\nYour verification code is 111111\r\n"
        );
        self.0
            .send("codes@other.test", to, decoy.into_bytes())
            .await?;
        self.0.send(from, to, raw).await
    }
}

/// Before the real mail, sends mail to the same address that an attacker can send or shape,
/// each with the shop's display name and subject and a code of its own (111111): senders
/// whose address only contains the shop's domain, two senders in one `From`, an address only
/// in the display name, and the shop's own address on a mail the receiving server found
/// failing DMARC.
struct SpoofsFirst(Arc<dyn Mailer>);

/// Spoofed `From` headers (plus any header the receiving server added) of [`SpoofsFirst`].
const SPOOFS: [&str; 6] = [
    "From: Demo Shop <no-reply@fakeshop.demo.test>",
    "From: Demo Shop <no-reply@shop.demo.test.evil.test>",
    "From: Demo Shop <shop.demo.test@evil.test>",
    "From: Demo Shop <mallory@evil.test>, Demo Shop <no-reply@shop.demo.test>",
    "From: \"Demo Shop <no-reply@shop.demo.test>\" <>",
    "Authentication-Results: mx.demo.test; spf=fail smtp.mailfrom=evil.test;\r\n \
     dkim=none; dmarc=fail (p=reject) header.from=shop.demo.test\r\n\
     From: Demo Shop <no-reply@shop.demo.test>",
];

#[async_trait]
impl Mailer for SpoofsFirst {
    async fn send(&self, from: &str, to: &str, raw: Vec<u8>) -> Result<(), String> {
        for headers in SPOOFS {
            let spoof = format!(
                "{headers}\r\nTo: {to}\r\nSubject: Your Demo Shop verification code\r\n\
                 Content-Type: text/plain\r\n\r\nYour verification code is: 111111\r\n"
            );
            self.0
                .send("mallory@evil.test", to, spoof.into_bytes())
                .await?;
        }
        self.0.send(from, to, raw).await
    }
}

fn bundled(name: &str) -> Plan {
    demo::bundled_plans()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| p)
        .unwrap()
}

async fn run_plan(
    plan: &Plan,
    site: &DemoSite,
    inbox: Arc<dyn Inbox>,
    run_id: String,
) -> RunResult {
    let vars = Vars::from_pairs([
        format!("base_url={}", site.url("")),
        "password=pw-123456".into(),
    ])
    .unwrap();
    let spec = RunSpec::new(plan.clone())
        .run_id(run_id)
        .vars(vars)
        .inbox(None, inbox);
    util::run_locked(spec).await.0
}

fn imap_inbox(dovecot: &Dovecot) -> Arc<dyn Inbox> {
    let url = parse_url(&dovecot.url("address=bob@demo.test&plus=true")).unwrap();
    util::rt().block_on(connect(&url)).unwrap()
}

fn assert_ok(r: &RunResult) {
    util::assert_succeeded(r);
}

fn setup() -> Option<Arc<Dovecot>> {
    util::browser()?;
    Dovecot::start().map(Arc::new)
}

#[test]
fn email_code_signup_with_split_boxes_over_imap() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let site = DemoSite::start(Arc::new(DovecotMailer(dovecot.clone())))
            .await
            .unwrap();
        let result = run_plan(&bundled("signup"), &site, inbox, runner::new_run_id()).await;
        assert_ok(&result);
        let otp = &result.steps[5];
        assert_eq!(otp.detail.located.as_ref().unwrap().strategy, "split");
        assert_eq!(
            otp.detail.email.as_ref().unwrap().subject,
            "Your Demo Shop verification code"
        );
        let masked = otp.detail.code.as_deref().unwrap();
        assert!(
            masked.contains('•') && masked.chars().count() == 6,
            "{masked}"
        );
        assert!(result.inbox_address.as_deref().unwrap().starts_with("bob+"));
    });
}

#[test]
fn magic_link_through_a_tracking_redirect_over_imap() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let site = DemoSite::start(Arc::new(DovecotMailer(dovecot.clone())))
            .await
            .unwrap();
        let result = run_plan(&bundled("magic-link"), &site, inbox, runner::new_run_id()).await;
        assert_ok(&result);
        let open = &result.steps[4];
        assert!(
            open.detail.link.as_deref().unwrap().contains("/t/c/"),
            "the tracked link was chosen: {:?}",
            open.detail
        );
        assert!(
            open.detail
                .url
                .as_deref()
                .unwrap()
                .contains("/magic?token="),
            "and followed: {:?}",
            open.detail
        );
        assert!(
            result.extracted[0].starts_with("Signed in as bob+"),
            "{:?}",
            result.extracted
        );
    });
}

#[test]
fn a_decoy_from_another_sender_is_ignored() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let mailer: Arc<dyn Mailer> = Arc::new(DovecotMailer(dovecot.clone()));
        let site = DemoSite::start(Arc::new(DecoyFirst(mailer))).await.unwrap();
        let result = run_plan(&bundled("signup"), &site, inbox, runner::new_run_id()).await;
        // The shop only verifies its own code: success proves the decoy's 111111 was not used.
        assert_ok(&result);
        assert_eq!(
            result.steps[4].detail.email.as_ref().unwrap().from,
            "Demo Shop <no-reply@shop.demo.test>"
        );
    });
}

#[test]
fn a_from_filter_is_not_steered_by_lookalike_several_or_unauthenticated_senders() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let mailer: Arc<dyn Mailer> = Arc::new(DovecotMailer(dovecot.clone()));
        let site = DemoSite::start(Arc::new(SpoofsFirst(mailer)))
            .await
            .unwrap();
        let plan = bundled("signup");
        assert!(
            plan.steps
                .iter()
                .any(|s| serde_json::to_value(s).unwrap()["from"] == "shop.demo.test"),
            "the plan filters by the shop's domain"
        );
        let result = run_plan(&plan, &site, inbox, runner::new_run_id()).await;
        // The shop verifies only its own code: success proves no spoof's 111111 was typed.
        assert_ok(&result);
        let email = result.steps[4].detail.email.as_ref().unwrap();
        assert_eq!(email.from, "Demo Shop <no-reply@shop.demo.test>");
    });
}

#[test]
fn stale_mail_sent_before_the_run_is_never_used() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let run_id = runner::new_run_id();
        // A code mail for this very address, delivered before the run started.
        let stale = format!(
            "From: Demo Shop <no-reply@shop.demo.test>\r\nTo: bob+{run_id}@demo.test\r\n\
             Subject: Your Demo Shop verification code\r\nContent-Type: text/plain\r\n\r\n\
             Your verification code is: 999999\r\n"
        );
        dovecot.append(stale.as_bytes()).await;
        let site = DemoSite::start(Arc::new(DovecotMailer(dovecot.clone())))
            .await
            .unwrap();
        let result = run_plan(&bundled("signup"), &site, inbox, run_id).await;
        assert_ok(&result);
    });
}

#[test]
fn two_concurrent_runs_share_one_mailbox_with_plus_addressing() {
    let Some(dovecot) = setup() else { return };
    let inbox = imap_inbox(&dovecot);
    util::rt().block_on(async {
        let site = DemoSite::start(Arc::new(DovecotMailer(dovecot.clone())))
            .await
            .unwrap();
        let plan = bundled("signup");
        let (a, b) = tokio::join!(
            run_plan(&plan, &site, inbox.clone(), runner::new_run_id()),
            run_plan(&plan, &site, inbox.clone(), runner::new_run_id()),
        );
        assert_ok(&a);
        assert_ok(&b);
        assert_ne!(a.inbox_address, b.inbox_address);
    });
}

#[test]
fn the_demo_runs_on_the_embedded_smtp_inbox() {
    if util::browser().is_none() {
        return;
    }
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            demo::DEMO_MAIL_DOMAIN,
        )
        .await
        .unwrap();
        let site = DemoSite::start(Arc::new(SmtpMailer::new(smtp.local_addr())))
            .await
            .unwrap();
        let results = demo::run_demo(util::browser().unwrap(), &site, smtp.clone(), false).await;
        assert_eq!(results.len(), 2);
        for r in &results {
            assert_ok(r);
            assert!(
                r.inbox_address
                    .as_deref()
                    .unwrap()
                    .ends_with("@demo.planlock.test")
            );
        }
    });
}

#[test]
fn a_mail_that_never_comes_fails_at_the_deadline_naming_what_arrived() {
    if util::browser().is_none() {
        return;
    }
    let plan = util::plan(
        r#"{"reasoning":"","steps":[
        {"type":"wait_for_email","from":"nobody-sends.test","timeout_seconds":1},
        {"type":"done","summary":"x"}]}"#,
    );
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "demo.test").await.unwrap();
        let site = DemoSite::start(Arc::new(SmtpMailer::new(smtp.local_addr()))).await.unwrap();
        let run_id = runner::new_run_id();
        // Something else arrives during the wait: the failure must say so.
        let mailer = SmtpMailer::new(smtp.local_addr());
        let to = smtp.run_address(&run_id);
        let other = format!("From: Weekly News <news@other.test>\r\nTo: {to}\r\nSubject: This week in news\r\n\r\nhello\r\n");
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            mailer.send("news@other.test", &to, other.into_bytes()).await.unwrap();
        });
        let result = run_plan(&plan, &site, smtp.clone(), run_id).await;
        let err = result.error.expect("failed");
        assert_eq!(err.kind, planlock::error::ErrorKind::EmailTimeout);
        assert!(err.message.contains("nobody-sends.test"), "{}", err.message);
        assert!(err.message.contains(result.inbox_address.as_deref().unwrap()), "{}", err.message);
        assert!(err.message.contains("This week in news"), "names what did arrive: {}", err.message);
    });
}
