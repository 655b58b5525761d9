//! Screenshots never show a secret or the emailed code: every element whose value or visible
//! text holds one is painted over before the capture, as Playwright's `mask` does. Checked by
//! the PNG's pixels over each element's box (fixed by the fixture's CSS).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::Duration;

use planlock::inbox::smtp::SmtpInbox;
use planlock::runner::{RunSpec, Screenshots, Secrets, Settings};

use crate::util;
use crate::util::smtp::{SmtpClient, message};

/// The pixels of a PNG as RGB, with its width.
fn pixels(png: &[u8]) -> (Vec<[u8; 3]>, usize) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match channels {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    (rgb, info.width as usize)
}

/// The distinct colours inside the CSS box (x, y, w, h), a few pixels in from its edges.
fn colours_in(png: &[u8], (x, y, w, h): (usize, usize, usize, usize)) -> HashSet<[u8; 3]> {
    let (rgb, width) = pixels(png);
    let mut seen = HashSet::new();
    for row in y + 3..y + h - 3 {
        for col in x + 3..x + w - 3 {
            seen.insert(rgb[row * width + col]);
        }
    }
    seen
}

const PASSWORD: (usize, usize, usize, usize) = (20, 20, 320, 32);
const WELCOME: (usize, usize, usize, usize) = (20, 80, 320, 32);
const METER: (usize, usize, usize, usize) = (20, 140, 320, 32);
const CODE: (usize, usize, usize, usize) = (20, 200, 320, 32);
const PLAIN: (usize, usize, usize, usize) = (20, 260, 320, 32);

#[test]
fn a_screenshot_paints_over_every_element_that_shows_a_secret_or_the_code() {
    if util::browser().is_none() {
        return;
    }
    let artifacts = tempfile::tempdir().unwrap();
    let plan = util::plan(
        r##"{"reasoning":"","steps":[
          {"type":"navigate","url":"{SITE}/show-secret.html"},
          {"type":"fill","describe":"the Password field","selector":"#pw","value":"{{secret.PW}}"},
          {"type":"use_otp_from_inbox","selector":"#code","timeout_seconds":20},
          {"type":"wait_for_text","text":"never shown","timeout_seconds":1},
          {"type":"done","summary":"x"}]}"##,
    );
    util::rt().block_on(async {
        let smtp = SmtpInbox::start(SocketAddr::from(([127, 0, 0, 1], 0)), "shots.test")
            .await
            .unwrap();
        let run_id = planlock::runner::new_run_id();
        let address = smtp.run_address(&run_id);
        // The code's mail, sent once the run's mailbox is open.
        let mailer = {
            let (addr, address) = (smtp.local_addr(), address.clone());
            tokio::spawn(async move {
                loop {
                    let mut c = SmtpClient::connect(addr).await;
                    c.command("EHLO shop.test").await;
                    c.command("MAIL FROM:<noreply@shop.test>").await;
                    if c.command(&format!("RCPT TO:<{address}>")).await.0 == 250 {
                        let raw = message(
                            "Shop <noreply@shop.test>",
                            &address,
                            "Your code",
                            "Your verification code is 482913",
                        );
                        assert_eq!(c.data(&raw).await.0, 250);
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        };
        let spec = RunSpec::new(plan)
            .run_id(run_id)
            .secrets(
                Secrets::none()
                    .with_given([("PW".to_string(), "Correct-Horse-4711".to_string())].into()),
            )
            .inbox(None, smtp.clone())
            .settings(Settings {
                screenshots: Screenshots::All,
                artifacts_dir: Some(artifacts.path().to_path_buf()),
                ..Settings::default()
            });
        let (result, _) = util::run_locked(spec).await;
        mailer.await.unwrap();
        assert_eq!(result.failed_step, Some(3), "{result:?}");
        let shot = |step: usize| {
            let path = result.steps[step]
                .detail
                .screenshot
                .clone()
                .unwrap_or_else(|| panic!("step {step} has a screenshot: {result:?}"));
            std::fs::read(path).unwrap()
        };
        let magenta: HashSet<[u8; 3]> = [[255, 0, 255]].into();
        // After the fill: the field and both mirrors are painted over; the code not yet.
        let filled = shot(1);
        for (what, place) in [
            ("password", PASSWORD),
            ("welcome", WELCOME),
            ("meter", METER),
        ] {
            let seen = colours_in(&filled, place);
            assert_eq!(
                seen,
                magenta,
                "{what} after the fill: {} colours",
                seen.len()
            );
        }
        assert_ne!(
            colours_in(&filled, PLAIN),
            magenta,
            "the rest of the page shows"
        );
        // After the code and at the failure: the code field too.
        for step in [2, 3] {
            let png = shot(step);
            for (what, place) in [("password", PASSWORD), ("welcome", WELCOME), ("code", CODE)] {
                let seen = colours_in(&png, place);
                assert_eq!(
                    seen,
                    magenta,
                    "{what} at step {step}: {} colours",
                    seen.len()
                );
            }
            let plain = colours_in(&png, PLAIN);
            assert!(
                plain.len() > 1,
                "the page's other text is still drawn: {plain:?}"
            );
        }
    });
}
