//! Optional fields of a request body: absent is `None`, but `null` is not a value the contract
//! allows, so it is refused (a 400) rather than read as absent.

use serde::{Deserialize, Deserializer};

/// For `#[serde(default, deserialize_with = "present")]` on an `Option` field: the value when
/// the field is given, an error for `null`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Deserialize)]
    struct Body {
        #[serde(default, deserialize_with = "super::present")]
        note: Option<String>,
    }

    #[test]
    fn absent_is_none_and_null_is_refused() {
        let read = |json: &str| serde_json::from_str::<Body>(json).map(|b| b.note);
        assert_eq!(read("{}").expect("absent"), None);
        assert_eq!(
            read(r#"{"note":"x"}"#).expect("given"),
            Some("x".to_owned())
        );
        assert!(read(r#"{"note":null}"#).is_err());
    }
}
