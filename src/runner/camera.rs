//! A step's screenshot as a run keeps it: taken after the step (or its failure), written as
//! `RUN_ID-step-N.png`, or the reason there is none in the step's detail.

use std::time::Duration;

use tokio::time::Instant;

use super::{Screenshots, Settings, StepDetail};
use crate::browser::Tab;
use crate::wait;

/// What a step's screenshot needs of its run, borrowed apart from the run so that a run's
/// future stays `Send`.
pub(super) struct Camera<'a> {
    pub(super) run_id: &'a str,
    pub(super) settings: &'a Settings,
    pub(super) never_shown: &'a [String],
}

impl Camera<'_> {
    /// The page URL and a screenshot of a failed step.
    pub(super) async fn failure_detail(&self, tab: &Tab, index: usize) -> StepDetail {
        let mut detail = StepDetail {
            url: Some(tab.url().await),
            ..StepDetail::default()
        };
        if self.settings.screenshots != Screenshots::None {
            self.take(tab, index, &mut detail).await;
        }
        detail
    }

    /// Takes the step's screenshot into `detail`: its path, or why it has none.
    pub(super) async fn take(&self, tab: &Tab, index: usize, detail: &mut StepDetail) {
        match self.screenshot(tab, index).await {
            Ok(path) => detail.screenshot = Some(path),
            Err(why) => detail.no_screenshot = Some(why),
        }
    }

    /// Saves a PNG of the viewport as `RUN_ID-step-N.png`, every place that shows or may show
    /// one of `never_shown` painted over; its path, or why there is none (the page cannot be
    /// captured, where to paint cannot be told, the file cannot be written).
    async fn screenshot(&self, tab: &Tab, index: usize) -> Result<String, String> {
        // A page mid-navigation (a click that submitted a form) cannot be captured until the
        // next document paints: try again shortly, for as long as a page takes to paint.
        let pace = wait::Pace::new(
            Instant::now() + Duration::from_millis(200),
            Duration::from_millis(10),
        );
        let png = loop {
            match tab.screenshot(self.never_shown).await {
                Ok(png) => break png,
                Err(why) if !pace.again().await => return Err(why.to_string()),
                Err(_) => {}
            }
        };
        let run_id = self.run_id;
        let dir = self
            .settings
            .artifacts_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("planlock").join(run_id));
        let path = dir.join(format!("{}-step-{}.png", run_id, index + 1));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, png))
            .map_err(|e| {
                format!(
                    "the picture could not be written to {}: {e}",
                    path.display()
                )
            })?;
        Ok(path.display().to_string())
    }
}
