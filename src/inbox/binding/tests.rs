use super::*;

fn imap(s: &str) -> ImapUrl {
    match parse_url(s).unwrap() {
        InboxUrl::Imap(u) => u,
        other => panic!("not imap: {other:?}"),
    }
}

fn smtp(s: &str) -> SmtpUrl {
    match parse_url(s).unwrap() {
        InboxUrl::Smtp(u) => u,
        other => panic!("not smtp: {other:?}"),
    }
}

/// The problem's sentence, checked to name no flag and never to show a password.
fn error(s: &str) -> String {
    match parse_binding(s) {
        Err(InboxError::InvalidUrl { given, problem }) => {
            let m = problem.to_string();
            assert!(!m.contains("--"), "{m}");
            for secret in ["hunter2", "s3cret"] {
                assert!(
                    !given.contains(secret) && !m.contains(secret),
                    "{given}: {m}"
                );
            }
            m
        }
        other => panic!("expected InvalidUrl for {s}, got {other:?}"),
    }
}

#[test]
fn imap_url_with_everything() {
    let (name, url) = parse_binding(
        "work=imap://bob%40corp:p%40ss%3Aw%2Frd@127.0.0.1:1143/Sent%20Items?address=Bob@Demo.test&plus=true&poll_ms=40",
    )
    .unwrap();
    assert_eq!(name.as_deref(), Some("work"));
    let InboxUrl::Imap(u) = url else { panic!() };
    assert!(!u.tls);
    assert_eq!(u.host, "127.0.0.1");
    assert_eq!(u.port, 1143);
    assert_eq!(u.user, "bob@corp");
    assert_eq!(u.password, "p@ss:w/rd");
    assert_eq!(u.mailbox, "Sent Items");
    assert_eq!(u.address, "bob@demo.test");
    assert!(u.plus);
    assert_eq!(u.poll, Duration::from_millis(40));
    assert_eq!(u.max_connections, DEFAULT_MAX_CONNECTIONS);
    assert_eq!(u.run_address("ab12"), "bob+ab12@demo.test");
    assert_eq!(u.to_string(), "imap://bob%40corp@127.0.0.1:1143/Sent Items");
    assert!(!format!("{u:?}").contains("p@ss"));
}

#[test]
fn imap_defaults() {
    let u = imap("imaps://me%40gmail.com:secret@imap.gmail.com");
    assert!(u.tls);
    assert_eq!(u.port, 993);
    assert_eq!(u.mailbox, "INBOX");
    assert_eq!(u.address, "me@gmail.com");
    assert!(!u.plus);
    assert_eq!(u.poll, DEFAULT_POLL_REMOTE);
    assert_eq!(u.run_address("x"), "me@gmail.com");
    let u = imap("imap://bob:pw@localhost/?address=bob@demo.test");
    assert_eq!(u.port, 143);
    assert_eq!(u.poll, DEFAULT_POLL_LOOPBACK);
    let u = imap("imap://bob:pw@localhost/?address=bob@demo.test&max_connections=2");
    assert_eq!(u.max_connections, 2);
}

#[test]
fn smtp_url() {
    let (name, url) = parse_binding("smtp://127.0.0.1:0?domain=Demo.Test").unwrap();
    assert_eq!(name, None);
    let InboxUrl::Smtp(u) = url else { panic!() };
    assert_eq!(u.listen, "127.0.0.1:0".parse().unwrap());
    assert_eq!(u.domain, "demo.test");
    let u = smtp("smtp://localhost?domain=d.test");
    assert_eq!(u.listen.port(), DEFAULT_SMTP_PORT);
    assert!(!u.allow_remote);
}

#[test]
fn smtp_beyond_loopback_only_when_asked_and_never_for_the_service() {
    let url = "smtp://0.0.0.0:2525?domain=d.test&allow_remote=true";
    let u = smtp(url);
    assert!(u.allow_remote);
    assert_eq!(u.to_string(), url);
    assert!(parse_url("smtp://[::1]:0?domain=d.test").is_ok());
    assert!(parse_url("smtp://127.0.0.2:0?domain=d.test").is_ok());
    for refused in [
        "smtp://0.0.0.0:2525?domain=d.test",
        "smtp://[::]:2525?domain=d.test",
        "smtp://192.168.1.5:2525?domain=d.test&allow_remote=false",
    ] {
        assert!(
            error(refused).contains("add &allow_remote=true"),
            "{refused}"
        );
    }
    for refused in [url, "smtp://127.0.0.1:2525?domain=d.test&allow_remote=true"] {
        let Err(InboxError::InvalidUrl { problem, .. }) =
            parse_binding_as(refused, Caller::Service)
        else {
            panic!("the service refuses {refused}");
        };
        assert_eq!(problem, UrlProblem::ServiceListensOnLoopback);
    }
    assert!(parse_binding_as("smtp://127.0.0.1:0?domain=d.test", Caller::Service).is_ok());
    assert!(
        parse_binding_as(
            "imap://b:pw@mail.example/?address=a@b.test",
            Caller::Service
        )
        .is_ok()
    );
}

#[test]
fn errors_name_the_wrong_part_and_hide_the_password() {
    let m = error("imap://bob:hunter2@127.0.0.1:1143/INBOX");
    assert!(m.contains("add ?address="), "{m}");
    assert!(!m.contains("hunter2"), "{m}");
    for (url, says) in [
        ("imap://bob@host/INBOX?address=a@b", "no password"),
        ("imap://:pw@host/INBOX?address=a@b", "no user name"),
        ("imap://b:pw@host/?address=nope", "not an e-mail address"),
        (
            "imap://b:pw@host/?address=a@b&adress=x",
            "unknown parameter `adress`",
        ),
        ("imap://b:pw@host/?address=a@b&plus=maybe", "plus=`maybe`"),
        ("imap://b:pw@host/?address=a@b&poll_ms=0", "poll_ms=`0`"),
        (
            "imap://b:pw@host/?address=a@b&max_connections=0",
            "max_connections=`0` must be a whole number from 1 to 32",
        ),
        ("imap://b:p%zz@host/?address=a@b", "password has a `%`"),
        ("pop3://b:pw@host/", "the scheme `pop3` is not an inbox's"),
        ("my inbox=imap://b:pw@h/?address=a@b", "name `my inbox`"),
        ("smtp://127.0.0.1:2525", "add ?domain="),
        ("smtp://mail.example.com:25?domain=x.test", "IP address"),
        ("smtp://127.0.0.1:25?domain=x_y", "not a domain name"),
        ("smtp://127.0.0.1:25/box?domain=x.test", "no mailbox path"),
        ("imap://bob:s3cret@[::1:1143/INBOX", "not a valid URL"),
    ] {
        let m = error(url);
        assert!(m.contains(says), "{url}: {m}");
    }
    assert!(error("bob@example.com").starts_with("not a URL"));
}

#[test]
fn an_error_carries_the_binding_as_given_without_its_password() {
    let Err(InboxError::InvalidUrl { given, problem }) =
        parse_binding(" work=imap://bob:hunter2@mail.test:1143/INBOX?plus=maybe ")
    else {
        panic!("plus=maybe is refused");
    };
    assert_eq!(
        given,
        "work=imap://bob:••••@mail.test:1143/INBOX?plus=maybe"
    );
    assert_eq!(
        problem,
        UrlProblem::NotABool {
            key: "plus",
            value: "maybe".into()
        }
    );
    let Err(InboxError::InvalidUrl { problem, .. }) = parse_url("imap://me%40x.test@h/") else {
        panic!("no password is refused");
    };
    // The hint repeats the user name as it must be written in a URL.
    assert!(
        problem
            .to_string()
            .starts_with("no password: write imap://me%40x.test:PASSWORD@h:143/"),
        "{problem}"
    );
}

#[test]
fn smtp_url_with_a_fixed_address() {
    let (name, url) = parse_binding("ada=smtp://127.0.0.1:2525?address=Ada@Demo.Test").unwrap();
    assert_eq!(name.as_deref(), Some("ada"));
    let InboxUrl::Smtp(u) = url else { panic!() };
    assert_eq!(u.address.as_deref(), Some("ada@demo.test"));
    assert_eq!(u.domain, "demo.test", "the domain is the address's");
    assert_eq!(u.to_string(), "smtp://127.0.0.1:2525?address=ada@demo.test");
    assert_eq!(parse_url(&u.to_string()).unwrap(), InboxUrl::Smtp(u));
    let u = smtp("smtp://127.0.0.1:0?domain=d.test");
    assert_eq!(u.address, None);
}

#[test]
fn a_fixed_address_is_one_address_and_never_with_a_domain() {
    let both = error("smtp://127.0.0.1:2525?domain=d.test&address=ada@d.test");
    assert!(both.contains("domain= and address= together"), "{both}");
    assert!(both.contains("not both"), "{both}");
    for (url, says) in [
        (
            "smtp://127.0.0.1:2525?address=ada",
            "address=`ada` is not an e-mail address",
        ),
        (
            "smtp://127.0.0.1:2525?address=",
            "address=`` is not an e-mail address",
        ),
        (
            "smtp://127.0.0.1:2525?address=ada@d_x.test",
            "address=`ada@d_x.test`",
        ),
        (
            "smtp://127.0.0.1:2525?address=a%20b@d.test",
            "address=`a b@d.test`",
        ),
    ] {
        let m = error(url);
        assert!(m.contains(says), "{url}: {m}");
    }
    let none = error("smtp://127.0.0.1:2525");
    assert!(
        none.contains("?domain=DOMAIN") && none.contains("?address=ADDR"),
        "{none}"
    );
    let unknown = error("smtp://127.0.0.1:2525?adress=ada@d.test");
    assert!(unknown.contains("domain= or address="), "{unknown}");
}
