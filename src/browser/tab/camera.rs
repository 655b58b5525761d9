//! A step's screenshot: the capture, and the places painted over in it before it leaves the
//! browser layer (see `shot`).

use base64::Engine;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams,
};

use super::*;
use crate::browser::shot::{self, MaskBoxes, NoPicture};

impl Tab {
    /// A PNG of the viewport, for reports, with every place that shows or may show one of
    /// `hidden` (secrets, emailed codes) painted over. Where those places cannot be told,
    /// there is no picture, rather than one that might show what it must not; the error says
    /// why.
    pub async fn screenshot(&self, hidden: &[String]) -> Result<Vec<u8>, NoPicture> {
        if hidden.is_empty() {
            return self.capture().await.ok_or(NoPicture::NotCaptured);
        }
        // The masker's script looks before and after the capture: whatever moved in between
        // is covered where it was and where it went. The layout snapshot, which takes far
        // longer on a long page, is taken once, right after the capture: a snapshot taken
        // before would be as old as it is slow by the time the picture is drawn.
        let mut mask = self.mask_boxes(hidden).await.ok_or(NoPicture::NoMasker)?;
        let png = self.capture().await.ok_or(NoPicture::NotCaptured)?;
        mask.extend(shot::layout::boxes(&self.page, hidden).await?);
        mask.extend(self.mask_boxes(hidden).await.ok_or(NoPicture::NoMasker)?);
        shot::paint_over(&png, &mask).ok_or(NoPicture::NotPainted)
    }

    async fn capture(&self) -> Option<Vec<u8>> {
        let params = CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            // Faster compression: `--screenshots all` takes one after every step.
            optimize_for_speed: Some(true),
            ..Default::default()
        };
        let shot = tokio::time::timeout(Duration::from_secs(5), self.page.execute(params))
            .await
            .ok()?
            .ok()?;
        let data: &str = shot.result.data.as_ref();
        base64::engine::general_purpose::STANDARD.decode(data).ok()
    }

    /// The boxes to paint over for `hidden`, found in planlock's world of the page, where no
    /// page script can change what the DOM answers. `None` while a new document has not made
    /// that world yet.
    async fn mask_boxes(&self, hidden: &[String]) -> Option<MaskBoxes> {
        let script = shot::SCREEN_MASK_JS;
        let values = serde_json::to_string(hidden).ok()?;
        let world = self.world.lock().ok().and_then(|w| w.clone())?;
        let params = EvaluateParams::builder()
            .expression(format!("({script})({values})"))
            .unique_context_id(world)
            .return_by_value(true)
            .build()
            .ok()?;
        let answer = tokio::time::timeout(Duration::from_secs(5), self.page.execute(params))
            .await
            .ok()?
            .ok()?;
        if answer.result.exception_details.is_some() {
            return None;
        }
        serde_json::from_value(answer.result.result.value.clone()?).ok()
    }
}
