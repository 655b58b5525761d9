//! A screenshot shows no secret and no emailed code, even where no script can read what a
//! page shows: a frame of another origin, a closed shadow root, CSS generated content, another
//! field's placeholder, a canvas; nor where text is drawn beyond its element's box. Checked as a person would look at the picture: Debian's
//! `tesseract` reads every PNG the run wrote, and no four characters of the value in a row may
//! be among what it reads. Each page is run a second time with the same value given as a plain
//! variable (nothing to hide), and there OCR must read it whole: so the check can fail, and a
//! pass means the value was covered, not that OCR could not read it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use planlock::inbox::smtp::SmtpInbox;
use planlock::plan::{self, Limits, Plan, Vars};
use planlock::runner::{RunResult, RunSpec, Screenshots, Secrets, Settings};

use crate::util::smtp::{SmtpClient, message};
use crate::util::{self, ocr, other_origin, site};

/// Plain capitals and digits in a large bold face: what OCR reads best.
const SECRET: &str = "WALRUS4826";
/// The code the mail carries (no leading zero: the page draws it as a CSS counter, a number).
const CODE: &str = "731605";

/// How the value reaches the plan: as a secret (it must never be legible) or as a plain
/// caller variable (nothing to hide: the control, where OCR must read it).
#[derive(Clone, Copy, PartialEq)]
enum Given {
    Secret,
    Plain,
}

/// Every PNG a run wrote, each with what OCR read in it.
struct Pictures {
    result: RunResult,
    read: Vec<(PathBuf, String)>,
}

impl Pictures {
    /// Fails naming the picture, and what OCR read there, where the value is legible.
    fn assert_nowhere_legible(&self, value: &str, place: &str) {
        for (png, text) in &self.read {
            if let Some(part) = ocr::legible_part(text, value) {
                panic!(
                    "{place}: \"{part}\" of the value is legible in {} (OCR read {text:?})",
                    png.display()
                );
            }
        }
    }

    /// What OCR read in the screenshot of step `n` (from 1).
    fn read_at_step(&self, n: usize) -> &str {
        let path = self.result.steps[n - 1]
            .detail
            .screenshot
            .as_deref()
            .unwrap_or_else(|| panic!("step {n} has a screenshot: {:?}", self.result));
        self.read
            .iter()
            .find(|(p, _)| p == Path::new(path))
            .map(|(_, t)| t.as_str())
            .unwrap_or_else(|| panic!("{path} was read"))
    }
}

/// Runs `plan` (`{{VALUE}}` stands for the value, as a secret or a plain variable) with a
/// screenshot after every step, then reads every PNG in the run's artifacts directory.
fn run(
    plan_json: &str,
    given: Given,
    value: &str,
    spec: impl FnOnce(RunSpec) -> RunSpec,
) -> Pictures {
    let tesseract = ocr::tesseract().expect("checked by the caller");
    let artifacts = tempfile::tempdir().unwrap();
    let (reference, vars) = match given {
        Given::Secret => ("{{secret.VALUE}}", Vars::default()),
        Given::Plain => (
            "{{VALUE}}",
            Vars::from_pairs([format!("VALUE={value}")]).unwrap(),
        ),
    };
    let json = plan_json.replace("{{VALUE}}", reference);
    let plan: Plan = plan::parse_and_validate(&json, &Limits::default(), &vars)
        .unwrap_or_else(|e| panic!("test plan is invalid: {e}\n{json}"));
    let mut run = RunSpec::new(plan).vars(vars).settings(Settings {
        screenshots: Screenshots::All,
        artifacts_dir: Some(artifacts.path().to_path_buf()),
        step_timeout: Duration::from_secs(20),
        ..Settings::default()
    });
    if given == Given::Secret {
        run = run
            .secrets(Secrets::none().with_given([("VALUE".to_string(), value.to_string())].into()));
    }
    let (result, _) = util::rt().block_on(util::run_locked(spec(run)));
    util::assert_succeeded(&result);
    for (i, step) in result.steps.iter().enumerate() {
        assert!(
            step.detail.screenshot.is_some(),
            "step {} has a screenshot (a picture covers, it is not withheld): {result:?}",
            i + 1
        );
    }
    let mut pngs: Vec<PathBuf> = std::fs::read_dir(artifacts.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pngs.sort();
    assert_eq!(pngs.len(), result.steps.len(), "one PNG per step: {pngs:?}");
    let read: Vec<(PathBuf, String)> = pngs
        .into_iter()
        .map(|png| {
            let text = ocr::read(&tesseract, &png);
            (png, text)
        })
        .collect();
    eprintln!("ocr: read {} pictures", read.len());
    Pictures { result, read }
}

/// A plan that opens `url`, types the value into the password field, waits for the page to
/// show it again, saves the form (the page stays, still showing it), and ends.
fn typing_plan(url: &str) -> String {
    format!(
        r##"{{"reasoning":"","steps":[
          {{"type":"navigate","url":"{url}"}},
          {{"type":"fill","describe":"the Password field","selector":"#pw","value":"{{{{VALUE}}}}"}},
          {{"type":"wait_for_text","text":"Mirrored","timeout_seconds":5}},
          {{"type":"click","describe":"the Save button","text":"Save"}},
          {{"type":"done","summary":"shown"}}]}}"##
    )
}

/// The page at `url` paints the typed value where no script can read it: typed as a plain
/// variable, OCR reads it whole in the picture after the page showed it; typed as a secret,
/// OCR reads no four characters of it in a row in any picture of the run.
fn never_legible(place: &str, url: &str, spec: impl Fn(RunSpec) -> RunSpec) {
    if util::browser().is_none() || ocr::tesseract().is_none() {
        return;
    }
    let plan = typing_plan(url);
    let control = run(&plan, Given::Plain, SECRET, &spec);
    let shown = control.read_at_step(3);
    assert!(
        ocr::reads_whole(shown, SECRET),
        "{place}, nothing to hide: OCR reads the value the page painted, else the check \
         below proves nothing (OCR read {shown:?})"
    );
    run(&plan, Given::Secret, SECRET, &spec).assert_nowhere_legible(SECRET, place);
}

#[test]
fn a_secret_a_frame_of_another_origin_shows_is_not_legible() {
    let inner = other_origin().url("/shots/frame-inner.html");
    let url = site().url(&format!(
        "/tpl/shots/frame.html?to={}",
        url::form_urlencoded::byte_serialize(inner.as_bytes()).collect::<String>()
    ));
    let other = format!("127.0.0.1:{}", other_origin().addr.port());
    never_legible("a cross-origin frame", &url, |s| s.allow_host(&other));
}

/// The same from another site, whose frame Chromium runs in a process of its own.
#[test]
fn a_secret_a_frame_of_another_site_shows_is_not_legible() {
    let Some(other) = util::other_site() else {
        eprintln!("skipping: 127.0.0.2 cannot be bound here");
        return;
    };
    let inner = other.url("/shots/frame-inner.html");
    let url = site().url(&format!(
        "/tpl/shots/frame.html?to={}",
        url::form_urlencoded::byte_serialize(inner.as_bytes()).collect::<String>()
    ));
    let host = other.addr.to_string();
    never_legible("a cross-site frame", &url, |s| s.allow_host(&host));
}

#[test]
fn a_secret_a_closed_shadow_root_shows_is_not_legible() {
    let url = site().url("/shots/closed-shadow.html");
    never_legible("a closed shadow root", &url, |s| s);
}

#[test]
fn a_secret_css_generated_content_shows_is_not_legible() {
    let url = site().url("/shots/generated.html");
    never_legible("::after { content: attr() }", &url, |s| s);
}

#[test]
fn a_secret_another_fields_placeholder_shows_is_not_legible() {
    let url = site().url("/shots/placeholder.html");
    never_legible("a placeholder", &url, |s| s);
}

#[test]
fn a_secret_a_canvas_drew_is_not_legible() {
    let url = site().url("/shots/canvas.html");
    never_legible("a canvas", &url, |s| s);
}

/// Plain text the masker's script finds, drawn beyond its element's box: overflowing a narrow
/// box, and copied further down by a text-shadow.
#[test]
fn a_secret_drawn_beyond_its_elements_box_is_not_legible() {
    let url = site().url("/shots/ink.html");
    never_legible("overflow and text-shadow", &url, |s| s);
}

/// Text shown from where a field's value is not: an option of a list box nobody chose (its own
/// text), and the alt text of an image that does not load.
#[test]
fn a_secret_an_unchosen_option_or_an_images_alt_text_shows_is_not_legible() {
    let url = site().url("/shots/listed.html");
    never_legible("a list box option and an alt text", &url, |s| s);
}

/// The emailed code, drawn back by a CSS counter once typed: typed from a plain variable, OCR
/// reads it; taken from the mail by the run, it is legible in no picture.
#[test]
fn an_emailed_code_a_css_counter_shows_is_not_legible() {
    if util::browser().is_none() || ocr::tesseract().is_none() {
        return;
    }
    let url = site().url("/shots/code.html");
    let control = format!(
        r##"{{"reasoning":"","steps":[
          {{"type":"navigate","url":"{url}"}},
          {{"type":"fill","describe":"the Code field","selector":"#code","value":"{{{{VALUE}}}}"}},
          {{"type":"wait_for_text","text":"Mirrored","timeout_seconds":5}},
          {{"type":"click","describe":"the Save button","text":"Save"}},
          {{"type":"done","summary":"shown"}}]}}"##
    );
    let shown = run(&control, Given::Plain, CODE, |s| s);
    let read = shown.read_at_step(3);
    assert!(
        ocr::reads_whole(read, CODE),
        "the code, nothing to hide: OCR reads it (OCR read {read:?})"
    );

    let taken = format!(
        r##"{{"reasoning":"","steps":[
          {{"type":"navigate","url":"{url}"}},
          {{"type":"use_otp_from_inbox","selector":"#code","timeout_seconds":20}},
          {{"type":"wait_for_text","text":"Mirrored","timeout_seconds":5}},
          {{"type":"click","describe":"the Save button","text":"Save"}},
          {{"type":"done","summary":"shown"}}]}}"##
    );
    let smtp = util::rt().block_on(async {
        SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "shots.test")
            .await
            .unwrap()
    });
    let run_id = planlock::runner::new_run_id();
    let address = smtp.run_address(&run_id);
    // The code's mail, sent once the run's mailbox is open.
    let mailer = {
        let (addr, address) = (smtp.local_addr(), address.clone());
        util::rt().spawn(async move {
            loop {
                let mut c = SmtpClient::connect(addr).await;
                c.command("EHLO shop.test").await;
                c.command("MAIL FROM:<noreply@shop.test>").await;
                if c.command(&format!("RCPT TO:<{address}>")).await.0 == 250 {
                    let body = format!("Your verification code is {CODE}");
                    let raw = message("Shop <noreply@shop.test>", &address, "Your code", &body);
                    assert_eq!(c.data(&raw).await.0, 250);
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    // No secret: what is hidden is the code alone, learnt from the mail.
    let pictures = run(&taken, Given::Plain, "unused", |s| {
        s.run_id(run_id.clone()).inbox(None, smtp.clone())
    });
    util::rt().block_on(mailer).unwrap();
    pictures.assert_nowhere_legible(CODE, "the emailed code as a CSS counter");
}
