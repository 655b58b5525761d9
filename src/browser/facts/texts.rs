//! The texts a run's facts hold (of the page, of the plan), where a secret could show: the
//! masker hides each in place before anything is written.

/// Facts that hold texts of a page or a plan.
pub trait Texts {
    /// Adds every text in these facts to `out`, to be masked in place.
    fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>);

    /// Every text in these facts, to be masked in place.
    fn strings_mut(&mut self) -> Vec<&mut String> {
        let mut out = Vec::new();
        self.texts_into(&mut out);
        out
    }
}

impl Texts for String {
    fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
        out.push(self);
    }
}

impl<T: Texts> Texts for Option<T> {
    fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
        if let Some(facts) = self {
            facts.texts_into(out);
        }
    }
}

impl<T: Texts> Texts for Vec<T> {
    fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
        for facts in self {
            facts.texts_into(out);
        }
    }
}

/// Implements [`Texts`] for a struct by naming each of its fields: those before `;` hold
/// texts (a `String`, or an option, a list or facts of them), those after `not:` hold none.
/// The pattern it writes has no `..`: a new field must be listed here or the build fails
/// (rustc says the pattern "requires `..`", at the `texts!` line), so no fact escapes the
/// masking of secrets.
macro_rules! texts {
    ($facts:ident: $($text:ident),* $(; not: $($other:ident),+)?) => {
        impl $crate::browser::Texts for $facts {
            fn texts_into<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
                let $facts { $($text,)* $($($other: _,)+)? } = self;
                $($crate::browser::Texts::texts_into($text, out);)*
            }
        }
    };
}

pub(crate) use texts;
