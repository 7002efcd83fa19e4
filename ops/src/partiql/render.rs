//! Items for people and for programs: an aligned table on a terminal, one JSON object per line
//! otherwise. Numbers are printed as DynamoDB returned them (money stays exact: no float on
//! the way), binary values as base64.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use shared::dynamo::keys;

use super::run::Item;

/// `item` as one line of JSON, its attributes in name order.
pub fn json_line(item: &Item) -> String {
    let mut out = String::new();
    json_map(item, &mut out);
    out
}

fn json_map(map: &HashMap<String, AttributeValue>, out: &mut String) {
    let names: BTreeSet<&String> = map.keys().collect();
    json_sequence(('{', '}'), names, out, |name, out| {
        json_string(name, out);
        out.push(':');
        json_value(&map[name.as_str()], out);
    });
}

fn json_string(text: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(text).to_string());
}

fn json_list<'v, T: 'v>(
    values: impl IntoIterator<Item = &'v T>,
    out: &mut String,
    each: impl Fn(&T, &mut String),
) {
    json_sequence(('[', ']'), values, out, |value, out| each(value, out));
}

/// `values` between `brackets`, separated by commas, each written by `each`.
fn json_sequence<T>(
    (open, close): (char, char),
    values: impl IntoIterator<Item = T>,
    out: &mut String,
    each: impl Fn(T, &mut String),
) {
    out.push(open);
    for (i, value) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(value, out);
    }
    out.push(close);
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn json_value(value: &AttributeValue, out: &mut String) {
    match value {
        AttributeValue::S(text) => json_string(text, out),
        AttributeValue::N(number) => out.push_str(number),
        AttributeValue::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        AttributeValue::B(blob) => json_string(&base64(blob.as_ref()), out),
        AttributeValue::Ss(texts) => json_list(texts, out, |t, out| json_string(t, out)),
        AttributeValue::Ns(numbers) => json_list(numbers, out, |n, out| out.push_str(n)),
        AttributeValue::Bs(blobs) => {
            json_list(blobs, out, |b, out| json_string(&base64(b.as_ref()), out));
        }
        AttributeValue::L(values) => json_list(values, out, json_value),
        AttributeValue::M(map) => json_map(map, out),
        // NULL, and any type a later SDK adds.
        _ => out.push_str("null"),
    }
}

/// The widest a cell is drawn; longer values end in `…`.
const CELL: usize = 40;

/// `items` as an aligned table: the keys first (table, then indexes), then every other
/// attribute by name; an attribute an item lacks is blank.
pub fn table(items: &[Item]) -> String {
    let key_order = [
        keys::PK,
        keys::SK,
        keys::GSI1PK,
        keys::GSI1SK,
        keys::GSI2PK,
        keys::GSI2SK,
        keys::GSI3PK,
        keys::GSI3SK,
    ];
    let present: BTreeSet<&str> = items
        .iter()
        .flat_map(|i| i.keys())
        .map(String::as_str)
        .collect();
    let mut columns: Vec<&str> = key_order
        .iter()
        .copied()
        .filter(|k| present.contains(k))
        .collect();
    columns.extend(
        present
            .iter()
            .copied()
            .filter(|name| !key_order.contains(name)),
    );
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            columns
                .iter()
                .map(|c| item.get(*c).map(cell).unwrap_or_default())
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([c.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        let _ = writeln!(out, "{}", padded.join("  ").trim_end());
    };
    let headers: Vec<String> = columns.iter().map(|c| printable(c)).collect();
    line(headers.iter().map(String::as_str).collect());
    let rules: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(rules.iter().map(String::as_str).collect());
    for row in &rows {
        line(row.iter().map(String::as_str).collect());
    }
    out
}

/// `text` safe to write to a terminal: control characters (escape sequences that retitle the
/// window or overprint) and bidirectional controls (that reorder what is shown) written as
/// `\u{…}`, the rest as it is.
pub fn printable(text: &str) -> String {
    let hidden = shared::domain::text::hidden;
    if !text.chars().any(hidden) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if hidden(c) {
                format!("\\u{{{:04x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn cell(value: &AttributeValue) -> String {
    let text = match value {
        AttributeValue::S(text) => text.clone(),
        AttributeValue::N(number) => number.clone(),
        other => {
            let mut out = String::new();
            json_value(other, &mut out);
            out
        }
    };
    let text = printable(&text.replace(['\n', '\t'], " "));
    if text.chars().count() > CELL {
        let cut: String = text.chars().take(CELL - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_reach_the_terminal_escaped() {
        let item: Item = [
            (
                "name".to_owned(),
                AttributeValue::S("\u{1b}]0;x\u{7}A\u{202E}b".into()),
            ),
            ("\u{1b}[2Jcol".to_owned(), AttributeValue::S("x\ry".into())),
        ]
        .into_iter()
        .collect();
        let shown = table(&[item]);
        assert!(
            !shown.chars().any(|c| c.is_control() && c != '\n'),
            "{shown:?}"
        );
        assert!(!shown.contains('\u{202E}'), "{shown:?}");
        assert!(
            shown.contains("\\u{001b}]0;x\\u{0007}A\\u{202e}b"),
            "{shown}"
        );
        assert!(
            shown.contains("\\u{001b}[2Jcol") && shown.contains("x\\u{000d}y"),
            "{shown}"
        );
        assert_eq!(printable("Ana Torres, 19.95 €"), "Ana Torres, 19.95 €");
    }
}
