//! Text a person typed and others will read: names of customers and products.

use crate::AppError;

/// The most characters a name holds.
pub const MAX_NAME_CHARS: usize = 200;

/// Whether `c` changes how the text around it is shown rather than showing itself: a control
/// character (a terminal's escape sequences among them) or a bidirectional control, which can
/// make a name read as another (`U+202E` reverses what follows).
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// Whether `c` is [`hidden`] or shows nothing at all (a zero-width space or joiner, a word
/// joiner, a soft hyphen, a byte-order mark): refused in text that must read as one string of
/// visible characters, such as a tracking number a customer types into a carrier's site.
pub fn invisible(c: char) -> bool {
    hidden(c)
        || matches!(
            c,
            '\u{00AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
        )
}

/// The most characters of staff's note.
pub const MAX_NOTE_CHARS: usize = 200;

/// Staff's note from what a client sent (`None`: none given): 1 to [`MAX_NOTE_CHARS`]
/// characters once trimmed, none of them control characters (the rules of staff's reasons, and
/// the contract's `StaffNote`). A note is staff's own: no answer to a customer carries it
/// (`OrderDetails::seen_by`, `OrderReturn::seen_by`).
pub fn note(raw: Option<&str>) -> Result<Option<String>, AppError> {
    raw.map(|raw| {
        let note = raw.trim();
        if note.is_empty()
            || note.chars().count() > MAX_NOTE_CHARS
            || note.chars().any(char::is_control)
        {
            return Err(AppError::invalid(format!(
                "note must be 1-{MAX_NOTE_CHARS} characters without control characters"
            )));
        }
        Ok(note.to_owned())
    })
    .transpose()
}

/// A name from what a client sent: at most [`MAX_NAME_CHARS`] characters (counted before
/// trimming, as the contract's maxLength counts), at least one not white space, none
/// [`hidden`]; surrounding white space dropped. (The same rules, as a pattern, are the
/// contract's `Name`.)
pub fn name(raw: &str) -> Result<String, AppError> {
    let chars = raw.chars().count();
    let name = raw.trim();
    if name.is_empty() || chars > MAX_NAME_CHARS || raw.chars().any(hidden) {
        return Err(AppError::invalid(format!(
            "name must be 1-{MAX_NAME_CHARS} characters without control or bidirectional-control characters"
        )));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_shows_what_it_says() {
        assert_eq!(name("  Ana Torres ").expect("name"), "Ana Torres");
        assert_eq!(name("Zoë Ølberg 李").expect("name"), "Zoë Ølberg 李");
        for bad in [
            "",
            "   ",
            "Ana\u{1b}[2J",
            "Ana\nTorres",
            "Ana\u{202E}serroT",
            "a\u{2066}b",
            "x\u{200F}",
        ] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        assert!(name(&"x".repeat(200)).is_ok());
        assert!(name(&"x".repeat(201)).is_err());
    }
}
