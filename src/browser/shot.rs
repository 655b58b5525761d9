//! Screenshots that never show a secret or an emailed code. The places to cover are found two
//! ways: by the masker's script in planlock's isolated world, before and after the capture
//! (every element whose value, placeholder or visible text holds one, and every frame, canvas
//! or made image whose pixels it cannot read), and in Chromium's layout snapshot right after
//! it (closed shadow roots, CSS generated text: [`layout`]). They are painted over in the PNG itself, as
//! Playwright's `mask` option paints them (but in the image, where no page script can lift the
//! paint). Where they cannot be told, no picture is written, and [`NoPicture`] says why.

use serde::Deserialize;

pub(super) mod layout;

/// Finds the boxes to paint over (see the script's own comment).
pub(super) const SCREEN_MASK_JS: &str = include_str!("screen_mask.js");
/// The paint: Playwright's mask colour, which no page is likely to use over a whole box.
pub const MASK_COLOUR: [u8; 3] = [255, 0, 255];

/// What [`SCREEN_MASK_JS`] answers: boxes in CSS pixels of the viewport, and how many device
/// pixels a CSS pixel is.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct MaskBoxes {
    pub boxes: Vec<[f64; 4]>,
    pub dpr: f64,
}

impl MaskBoxes {
    pub(super) fn extend(&mut self, other: MaskBoxes) {
        self.boxes.extend(other.boxes);
        if self.dpr <= 0.0 {
            self.dpr = other.dpr;
        }
    }
}

/// Why a step has no screenshot.
#[derive(Debug, Clone, PartialEq)]
pub enum NoPicture {
    /// The page gave no picture (it was between documents).
    NotCaptured,
    /// The masker's script could not run (the page was between documents).
    NoMasker,
    /// Chromium gave no layout snapshot of the page.
    NoSnapshot,
    /// Something to cover is in a frame the snapshot does not place in the page.
    UnplacedFrame,
    /// The captured PNG could not be read to be painted over.
    NotPainted,
}

impl std::fmt::Display for NoPicture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const WITHHELD: &str = "no picture is written rather than one that might show it";
        match self {
            NoPicture::NotCaptured => {
                write!(
                    f,
                    "the page could not be captured (it was between documents)"
                )
            }
            NoPicture::NoMasker => write!(
                f,
                "where a secret or the emailed code shows on the page could not be looked for \
                 (the page was between documents); {WITHHELD}"
            ),
            NoPicture::NoSnapshot => write!(
                f,
                "Chromium gave no layout snapshot of the page, so what no script can read \
                 (closed shadow roots, CSS generated text) could not be checked for a secret or \
                 the emailed code; {WITHHELD}"
            ),
            NoPicture::UnplacedFrame => write!(
                f,
                "a frame of the page may show a secret or the emailed code and could not be \
                 placed in the picture to be covered; {WITHHELD}"
            ),
            NoPicture::NotPainted => write!(
                f,
                "the picture could not be painted over where a secret or the emailed code may \
                 show (its PNG could not be read); {WITHHELD}"
            ),
        }
    }
}

impl From<layout::Unplaced> for NoPicture {
    fn from(why: layout::Unplaced) -> NoPicture {
        match why {
            layout::Unplaced::NoSnapshot => NoPicture::NoSnapshot,
            layout::Unplaced::Frame => NoPicture::UnplacedFrame,
        }
    }
}

/// `png` with every box painted over, a device pixel beyond each edge for anti-aliasing;
/// `None` when the PNG cannot be read or written (no screenshot then, rather than one that
/// might show what it must not).
pub(super) fn paint_over(png: &[u8], mask: &MaskBoxes) -> Option<Vec<u8>> {
    if mask.boxes.is_empty() {
        return Some(png.to_vec());
    }
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = info.color_type.samples();
    // Everything becomes RGBA, so the paint is the same colour whatever the capture was.
    let mut rgba: Vec<u8> = Vec::with_capacity(width * height * 4);
    for px in buf[..info.buffer_size()].chunks(channels) {
        match channels {
            1 => rgba.extend_from_slice(&[px[0], px[0], px[0], 255]),
            2 => rgba.extend_from_slice(&[px[0], px[0], px[0], px[1]]),
            3 => rgba.extend_from_slice(&[px[0], px[1], px[2], 255]),
            _ => rgba.extend_from_slice(&px[..4]),
        }
    }
    let dpr = if mask.dpr > 0.0 { mask.dpr } else { 1.0 };
    let [r, g, b] = MASK_COLOUR;
    for [x, y, w, h] in &mask.boxes {
        let clamp = |v: f64, max: usize| (v.max(0.0) as usize).min(max);
        let x0 = clamp((x * dpr).floor() - 1.0, width);
        let y0 = clamp((y * dpr).floor() - 1.0, height);
        let x1 = clamp(((x + w) * dpr).ceil() + 1.0, width);
        let y1 = clamp(((y + h) * dpr).ceil() + 1.0, height);
        for row in y0..y1 {
            for col in x0..x1 {
                let at = (row * width + col) * 4;
                rgba[at..at + 4].copy_from_slice(&[r, g, b, 255]);
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, info.width, info.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&rgba).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn white_png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![255; (width * height * 3) as usize])
            .unwrap();
        drop(writer);
        out
    }

    fn pixel(png: &[u8], x: usize, y: usize) -> [u8; 4] {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let at = (y * info.width as usize + x) * 4;
        buf[at..at + 4].try_into().unwrap()
    }

    #[test]
    fn boxes_are_painted_in_device_pixels_and_the_rest_is_kept() {
        let png = white_png(40, 20);
        let mask = MaskBoxes {
            boxes: vec![[2.0, 2.0, 5.0, 3.0], [30.0, 15.0, 50.0, 50.0]],
            dpr: 2.0,
        };
        let painted = paint_over(&png, &mask).unwrap();
        assert_eq!(pixel(&painted, 6, 6), [255, 0, 255, 255]);
        assert_eq!(
            pixel(&painted, 14, 10),
            [255, 0, 255, 255],
            "x 2..7 is 4..14 at 2x"
        );
        assert_eq!(pixel(&painted, 16, 6), [255, 255, 255, 255]);
        assert_eq!(
            pixel(&painted, 39, 19),
            [255, 255, 255, 255],
            "off the image: clamped"
        );
        assert_eq!(paint_over(&png, &MaskBoxes::default()).unwrap(), png);
    }
}
