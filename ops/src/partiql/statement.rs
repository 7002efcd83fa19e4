//! What `store-query` runs, decided from the statement's text alone, before any request.
//!
//! Accepted: one `SELECT <projection> FROM <table>[.<index>] [WHERE <condition>] [ORDER BY
//! <paths>] [;]`, keywords in any case, names bare or `"double-quoted"`, strings `'single-quoted'`
//! (`''` for a quote inside). The condition may use `AND`, `OR`, `NOT`, parentheses, the
//! comparisons, `+`/`-`, `BETWEEN … AND …`, `IN [..]`/`IN (..)`, `IS [NOT] MISSING|NULL`,
//! functions (`begins_with(SK, 'ORDER#')`, `size(…)`, …), paths (`a.b[0]`) and literals
//! (strings, numbers, and lists, maps and bags of literals). The text is split as DynamoDB's
//! lexer splits it (`tokenize`); comments and parameters (`?`) are refused.
//!
//! A statement reads named partitions — and is no Scan — when its `WHERE`, written as an OR of
//! ANDs, fixes the partition key of what it reads (`PK` on the table, `GSI1PK` on `"GSI1"`,
//! `GSI2PK` on `"GSI2"`) in every AND exactly once: one distinct `key = literal`, or one
//! `key IN [literals]`, and no other comparison of the key. That is DynamoDB's own rule for
//! PartiQL: anything else (no `WHERE`, an `OR` with a side that does not fix it, two different
//! values in one AND, `NOT`, `<`, `begins_with` on the key, the key compared with another
//! attribute) is a full scan of the table or index, billed for every item it reads.

use std::fmt;

use shared::dynamo::keys;

/// What a statement reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Table,
    /// A global secondary index of the store (`keys::GSI1`, `keys::GSI2`, `keys::GSI3`).
    Index(&'static str),
}

/// The store's global secondary indexes and their partition keys.
const INDEXES: [(&str, &str); 3] = [
    (keys::GSI1, keys::GSI1PK),
    (keys::GSI2, keys::GSI2PK),
    (keys::GSI3, keys::GSI3PK),
];

impl Target {
    /// The attribute that names a partition of what is read.
    pub fn partition_key(&self) -> &'static str {
        match self {
            Target::Table => keys::PK,
            Target::Index(index) => INDEXES
                .iter()
                .find(|(name, _)| name == index)
                .map_or(keys::PK, |(_, key)| key),
        }
    }

    /// What it is, for a person: `the table "AppTable"`, `the index "AppTable"."GSI1"`.
    pub fn describe(&self, table: &str) -> String {
        match self {
            Target::Table => format!("the table {table:?}"),
            Target::Index(index) => format!("the index {table:?}.{index:?}"),
        }
    }
}

/// A SELECT the tool may send: what it reads, and the partitions it reads when it names them
/// (`None`: every partition, a scan the caller allowed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub target: Target,
    pub partitions: Option<Vec<String>>,
}

/// Why a statement is not sent. Each is decided before any request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a SELECT: the tool never writes.
    NotSelect(String),
    /// Outside the subset above, or not PartiQL.
    Malformed(String),
    /// Another table than the one the tool was pointed at.
    OtherTable { named: String, table: String },
    /// An index the table does not have.
    UnknownIndex(String),
    /// A full scan of `target`: its partition key `key` is not fixed; `why` says how.
    Scan {
        target: String,
        key: &'static str,
        why: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotSelect(word) => write!(
                f,
                "refused: only SELECT statements are run here ({word} would change the table)"
            ),
            Refusal::Malformed(why) => write!(f, "refused: not a statement this tool reads: {why}"),
            Refusal::OtherTable { named, table } => write!(
                f,
                "refused: the statement reads {named:?}; this tool reads only {table:?} (--table, TABLE_NAME)"
            ),
            Refusal::UnknownIndex(index) => write!(
                f,
                "refused: the table has no index {index:?} (its indexes: {:?})",
                INDEXES.map(|(name, _)| name)
            ),
            Refusal::Scan { target, key, why } => write!(
                f,
                "refused: this SELECT is a full scan of {target}: {why}. Fix the partition key \
                 with `{key} = '…'` or `{key} IN ['…', '…']` under the WHERE (an OR must fix it on every side), \
                 or pass --allow-scan to read (and pay for) every item"
            ),
        }
    }
}

/// Checks `statement` against the table `table`. `allow_scan` lets a statement that fixes no
/// partition through (its `partitions` are then `None`).
pub fn check(statement: &str, table: &str, allow_scan: bool) -> Result<Checked, Refusal> {
    // What it would do is decided by its first word, whatever follows.
    let first: String = statement
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    if !first.is_empty() && !first.eq_ignore_ascii_case("SELECT") {
        return Err(Refusal::NotSelect(first.to_ascii_uppercase()));
    }
    let tokens = tokenize(statement)?;
    let mut parser = Parser { tokens, at: 0 };
    let select = parser.select()?;
    let target = match select.index.as_deref() {
        _ if select.table != table => {
            return Err(Refusal::OtherTable {
                named: select.table,
                table: table.to_string(),
            });
        }
        None => Target::Table,
        Some(index) => match INDEXES.iter().find(|(name, _)| *name == index) {
            Some((name, _)) => Target::Index(name),
            None => return Err(Refusal::UnknownIndex(index.to_string())),
        },
    };
    let key = target.partition_key();
    let why = match select.condition.as_ref().map(|c| fixed_partitions(c, key)) {
        Some(Ok(values)) if values.len() > MAX_KEY_VALUES => {
            return Err(Refusal::Malformed(format!(
                "it names {} values of {key}; DynamoDB takes at most {MAX_KEY_VALUES} partition key values in one statement",
                values.len()
            )));
        }
        Some(Ok(values)) => {
            return Ok(Checked {
                target,
                partitions: Some(values),
            });
        }
        Some(Err(why)) => why,
        None => "it has no WHERE".into(),
    };
    if allow_scan {
        return Ok(Checked {
            target,
            partitions: None,
        });
    }
    Err(Refusal::Scan {
        target: target.describe(table),
        key,
        why,
    })
}

/// DynamoDB's limits on an IN list: values of a partition key, values of any other attribute.
pub const MAX_KEY_VALUES: usize = 50;
pub const MAX_IN_VALUES: usize = 100;

/// How many alternatives a WHERE may have once written as ORs of ANDs.
const MAX_DISJUNCTS: usize = 256;

/// The partitions the condition fixes `key` to, or why it fixes none. The condition is written
/// in disjunctive form (an OR of ANDs); every AND must fix the key with exactly one distinct
/// `key = literal`, or exactly one `key IN [literals]`, and compare it in no other way. Anything
/// else (two different values, `=` beside `IN`, a side of an OR that does not fix it) is a scan
/// to DynamoDB.
fn fixed_partitions(condition: &Cond, key: &str) -> Result<Vec<String>, String> {
    if !condition.mentions(key) {
        return Err(format!("its WHERE does not name {key}"));
    }
    let disjuncts = disjunctive(condition).ok_or_else(|| {
        format!("its WHERE has more than {MAX_DISJUNCTS} alternatives once written as ORs of ANDs")
    })?;
    let mut partitions: Vec<String> = Vec::new();
    for conjunction in &disjuncts {
        let values = conjunction_fixes(conjunction, key).map_err(|why| match why {
            Unfixed::Missing if disjuncts.len() > 1 => {
                format!("{key} is under an OR one of whose sides does not fix it")
            }
            Unfixed::Missing => format!(
                "{key} is not compared with = or IN to literal values at the WHERE's top level"
            ),
            Unfixed::Twice => format!(
                "{key} is fixed twice in one AND (two different values, or = beside IN), which DynamoDB reads as a scan"
            ),
            Unfixed::Otherwise => format!(
                "{key} is compared with = or IN and also in another way in one AND; fix it once, and filter on other attributes"
            ),
        })?;
        for value in values {
            if !partitions.contains(&value) {
                partitions.push(value);
            }
        }
    }
    Ok(partitions)
}

/// Why one AND of the disjunctive form fixes no partition.
enum Unfixed {
    Missing,
    Twice,
    Otherwise,
}

/// The values one AND's atoms fix `key` to.
fn conjunction_fixes(atoms: &[&Cond], key: &str) -> Result<Vec<String>, Unfixed> {
    let literal = |operand: &Operand| match operand {
        Operand::Literal(value) => Some(value.clone()),
        _ => None,
    };
    let (mut equal, mut lists, mut otherwise) = (Vec::new(), Vec::new(), false);
    for atom in atoms {
        match atom {
            Cond::Eq(Operand::Key(name), Operand::Literal(value))
            | Cond::Eq(Operand::Literal(value), Operand::Key(name))
                if name == key =>
            {
                equal.push(value.clone());
            }
            Cond::In(Operand::Key(name), values) if name == key && !values.is_empty() => {
                match values.iter().map(literal).collect::<Option<Vec<_>>>() {
                    Some(values) => lists.push(values),
                    None => otherwise = true,
                }
            }
            other if other.mentions(key) => otherwise = true,
            _ => {}
        }
    }
    // The same value twice fixes one partition.
    equal.sort();
    equal.dedup();
    match (equal.len(), lists.len()) {
        (0, 0) => Err(Unfixed::Missing),
        _ if otherwise => Err(Unfixed::Otherwise),
        (1, 0) => Ok(equal),
        (0, 1) => Ok(lists.remove(0)),
        _ => Err(Unfixed::Twice),
    }
}

/// `condition` as an OR of ANDs of atoms (each atom a comparison, a predicate or a NOT); `None`
/// past [`MAX_DISJUNCTS`] alternatives.
fn disjunctive(condition: &Cond) -> Option<Vec<Vec<&Cond>>> {
    match condition {
        Cond::Or(parts) => {
            let mut all = Vec::new();
            for part in parts {
                all.extend(disjunctive(part)?);
                if all.len() > MAX_DISJUNCTS {
                    return None;
                }
            }
            Some(all)
        }
        Cond::And(parts) => {
            let mut product: Vec<Vec<&Cond>> = vec![Vec::new()];
            for part in parts {
                let alternatives = disjunctive(part)?;
                if product.len() * alternatives.len() > MAX_DISJUNCTS {
                    return None;
                }
                product = product
                    .iter()
                    .flat_map(|left| {
                        alternatives.iter().map(move |right| {
                            left.iter().chain(right.iter()).copied().collect::<Vec<_>>()
                        })
                    })
                    .collect();
            }
            Some(product)
        }
        atom => Some(vec![vec![atom]]),
    }
}

/// A condition, as far as the partition-key rule needs to see it.
#[derive(Debug)]
enum Cond {
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Not(Box<Cond>),
    Eq(Operand, Operand),
    In(Operand, Vec<Operand>),
    /// Any other predicate, with the top-level attributes it names.
    Other(Vec<Operand>),
}

impl Cond {
    fn mentions(&self, key: &str) -> bool {
        let named = |operand: &Operand| operand.names(key);
        match self {
            Cond::And(parts) | Cond::Or(parts) => parts.iter().any(|p| p.mentions(key)),
            Cond::Not(inner) => inner.mentions(key),
            Cond::Eq(a, b) => named(a) || named(b),
            Cond::In(a, values) => named(a) || values.iter().any(named),
            Cond::Other(operands) => operands.iter().any(named),
        }
    }
}

impl Operand {
    /// Whether `key` is this attribute, a path into it, or among a function's arguments.
    fn names(&self, key: &str) -> bool {
        match self {
            Operand::Key(name) | Operand::Nested(name) => name == key,
            Operand::Call(arguments) => arguments.iter().any(|a| a.names(key)),
            Operand::Literal(_) | Operand::Value => false,
        }
    }
}

#[derive(Debug, Clone)]
enum Operand {
    /// A top-level attribute.
    Key(String),
    /// A path into an attribute (`a.b`, `a[0]`): never a key.
    Nested(String),
    /// A string or number literal, as its value.
    Literal(String),
    /// A function's value, from its arguments.
    Call(Vec<Operand>),
    /// Anything else: a collection, TRUE, NULL, MISSING.
    Value,
}

#[derive(Debug, Clone)]
enum Tok {
    /// A bare name or keyword.
    Word(String),
    /// A `"quoted"` name.
    Quoted(String),
    /// A `'quoted'` string.
    Str(String),
    Num(String),
    Sym(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) | Tok::Num(w) => write!(f, "{w}"),
            Tok::Quoted(q) => write!(f, "\"{q}\""),
            Tok::Str(s) => write!(f, "'{s}'"),
            Tok::Sym(s) => write!(f, "{s}"),
        }
    }
}

const SYMBOLS: [&str; 22] = [
    "*", ":", "<<", ">>", "<>", "!=", "<=", ">=", "=", "<", ">", "(", ")", "[", "]", "{", "}", ",",
    ".", ";", "+", "-",
];

/// How deep brackets may nest (and NOTs repeat): far past any statement a person writes, far
/// short of what would exhaust the checker's stack.
pub const MAX_DEPTH: usize = 64;

/// Splits `text` where DynamoDB's PartiQL lexer does, or refuses it. Whitespace is ASCII's; a
/// name is `[A-Za-z_][A-Za-z0-9_]*` or `"quoted"`; a number is digits with an optional fraction
/// and exponent, and may not run straight into a name or another dot; `-` and `+` are operators
/// of their own, so `--` is always a comment. Comments of either kind (`--`, `/* */`) are
/// refused wherever they are outside quotes: what they hide is not checked, so nothing is sent.
fn tokenize(text: &str) -> Result<Vec<Tok>, Refusal> {
    let mut tokens = Vec::new();
    let mut rest = text;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0C') {
            rest = &rest[1..];
        } else if c == '\'' || c == '"' {
            let (value, after) = quoted(rest, c)?;
            tokens.push(if c == '\'' {
                Tok::Str(value)
            } else {
                Tok::Quoted(value)
            });
            rest = after;
        } else if c.is_ascii_digit() {
            let (number, after) = number(rest)?;
            tokens.push(Tok::Num(number.to_owned()));
            rest = after;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = rest
                .find(|d: char| !(d.is_ascii_alphanumeric() || d == '_'))
                .unwrap_or(rest.len());
            tokens.push(Tok::Word(rest[..end].to_string()));
            rest = &rest[end..];
        } else if c == '?' {
            return Err(Refusal::Malformed(
                "parameters (?) are not supported: write the values into the statement".into(),
            ));
        } else if rest.starts_with("--") || rest.starts_with("/*") {
            return Err(Refusal::Malformed(
                "comments are not supported (-- and /* */): what they hide could not be checked"
                    .into(),
            ));
        } else if let Some(symbol) = SYMBOLS.iter().find(|s| rest.starts_with(**s)) {
            if closing(symbol).is_some() {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
            } else if matches!(*symbol, ")" | "]" | "}" | ">>") {
                depth = depth.saturating_sub(1);
            }
            tokens.push(Tok::Sym(symbol));
            rest = &rest[symbol.len()..];
        } else {
            return Err(Refusal::Malformed(format!(
                "unexpected character {c:?} (U+{:04X})",
                u32::from(c)
            )));
        }
    }
    Ok(tokens)
}

fn too_deep() -> Refusal {
    Refusal::Malformed(format!(
        "brackets or NOTs nested more than {MAX_DEPTH} deep"
    ))
}

/// A number at the start of `text` (which starts with a digit): `digits[.digits][e[+-]digits]`.
fn number(text: &str) -> Result<(&str, &str), Refusal> {
    let bytes = text.as_bytes();
    let digits = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut end = digits(0);
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        if bytes.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign);
        }
    }
    match bytes.get(end) {
        Some(next) if next.is_ascii_alphanumeric() || *next == b'_' || *next == b'.' => {
            Err(Refusal::Malformed(format!(
                "the number {:?} runs straight into {:?}",
                &text[..end],
                char::from(*next)
            )))
        }
        _ => Ok(text.split_at(end)),
    }
}

/// A quoted string or name starting at `text`'s first character, with doubled quotes undone.
fn quoted(text: &str, quote: char) -> Result<(String, &str), Refusal> {
    let mut value = String::new();
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        if c != quote {
            value.push(c);
        } else if chars.peek().is_some_and(|(_, next)| *next == quote) {
            value.push(quote);
            chars.next();
        } else {
            return Ok((value, &text[at + 1..]));
        }
    }
    Err(Refusal::Malformed(format!("a {quote} is never closed")))
}

const KEYWORDS: [&str; 16] = [
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "BETWEEN", "IN", "IS", "ORDER", "BY", "ASC",
    "DESC", "MISSING", "NULL", "EXISTS",
];

struct Select {
    table: String,
    index: Option<String>,
    condition: Option<Cond>,
}

struct Parser {
    tokens: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.is_word(word);
        self.at += usize::from(found);
        found
    }

    fn eat_sym(&mut self, symbol: &str) -> bool {
        let found = matches!(self.peek(), Some(Tok::Sym(s)) if *s == symbol);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, what: &str) -> Refusal {
        match self.peek() {
            Some(token) => Refusal::Malformed(format!("expected {what}, found {token}")),
            None => Refusal::Malformed(format!("expected {what}, found the end")),
        }
    }

    fn select(&mut self) -> Result<Select, Refusal> {
        // Any other first word was refused by `check` before the statement was read.
        if !self.eat_word("SELECT") {
            return Err(self.expect("SELECT"));
        }
        self.projection()?;
        let table = self.name().ok_or_else(|| self.expect("a table name"))?;
        let index = if self.eat_sym(".") {
            Some(self.name().ok_or_else(|| self.expect("an index name"))?)
        } else {
            None
        };
        let condition = if self.eat_word("WHERE") {
            Some(self.or()?)
        } else {
            None
        };
        if self.eat_word("ORDER") {
            self.order_by()?;
        }
        self.eat_sym(";");
        match self.peek() {
            None => Ok(Select {
                table,
                index,
                condition,
            }),
            Some(_) => Err(self.expect("the end of the statement")),
        }
    }

    /// `*`, or attributes, paths and function calls separated by commas; then FROM.
    fn projection(&mut self) -> Result<(), Refusal> {
        if !self.eat_sym("*") {
            loop {
                self.operand()?;
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        if self.eat_word("FROM") {
            Ok(())
        } else {
            Err(self.expect("FROM"))
        }
    }

    /// A table or index name: bare (not a keyword) or quoted.
    fn name(&mut self) -> Option<String> {
        match self.peek()? {
            Tok::Quoted(name) => {
                let name = name.clone();
                self.at += 1;
                Some(name)
            }
            Tok::Word(word) if !is_keyword(word) => {
                let word = word.clone();
                self.at += 1;
                Some(word)
            }
            _ => None,
        }
    }

    fn order_by(&mut self) -> Result<(), Refusal> {
        if !self.eat_word("BY") {
            return Err(self.expect("BY"));
        }
        loop {
            match self.operand()? {
                Operand::Key(_) | Operand::Nested(_) => {}
                _ => return Err(Refusal::Malformed("ORDER BY takes attribute names".into())),
            }
            let _ = self.eat_word("ASC") || self.eat_word("DESC");
            if !self.eat_sym(",") {
                return Ok(());
            }
        }
    }

    fn or(&mut self) -> Result<Cond, Refusal> {
        self.joined("OR", Self::and, Cond::Or)
    }

    fn and(&mut self) -> Result<Cond, Refusal> {
        self.joined("AND", Self::unary, Cond::And)
    }

    /// `part (word part)*`: one part as itself, more as `join`.
    fn joined(
        &mut self,
        word: &str,
        part: fn(&mut Self) -> Result<Cond, Refusal>,
        join: fn(Vec<Cond>) -> Cond,
    ) -> Result<Cond, Refusal> {
        let mut parts = vec![part(self)?];
        while self.eat_word(word) {
            parts.push(part(self)?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            join(parts)
        })
    }

    fn unary(&mut self) -> Result<Cond, Refusal> {
        let mut nots = 0;
        while self.eat_word("NOT") {
            nots += 1;
            if nots > MAX_DEPTH {
                return Err(too_deep());
            }
        }
        if nots > 0 {
            // NOT NOT x is x to DynamoDB, and to the rule; an odd count is one NOT.
            let inner = self.unary()?;
            return Ok(if nots % 2 == 1 {
                Cond::Not(Box::new(inner))
            } else {
                inner
            });
        }
        if self.eat_sym("(") {
            let inner = self.or()?;
            if !self.eat_sym(")") {
                return Err(self.expect(")"));
            }
            return Ok(inner);
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Result<Cond, Refusal> {
        let left = self.operand()?;
        let negated = self.eat_word("NOT");
        if self.eat_word("BETWEEN") {
            let low = self.operand()?;
            if !self.eat_word("AND") {
                return Err(self.expect("AND of BETWEEN"));
            }
            let high = self.operand()?;
            return Ok(Cond::Other(vec![left, low, high]));
        }
        if self.eat_word("IN") {
            let values = self.list()?;
            if values.len() > MAX_IN_VALUES {
                return Err(Refusal::Malformed(format!(
                    "an IN list holds at most {MAX_IN_VALUES} values in DynamoDB (and at most {MAX_KEY_VALUES} on a partition key); this one holds {}",
                    values.len()
                )));
            }
            return Ok(if negated {
                Cond::Not(Box::new(Cond::In(left, values)))
            } else {
                Cond::In(left, values)
            });
        }
        if negated {
            return Err(self.expect("BETWEEN or IN after NOT"));
        }
        if self.eat_word("IS") {
            self.eat_word("NOT");
            if !(self.eat_word("MISSING") || self.eat_word("NULL")) {
                return Err(self.expect("MISSING or NULL"));
            }
            return Ok(Cond::Other(vec![left]));
        }
        for symbol in ["=", "<>", "!=", "<=", ">=", "<", ">"] {
            if self.eat_sym(symbol) {
                let right = self.operand()?;
                return Ok(if symbol == "=" {
                    Cond::Eq(left, right)
                } else {
                    Cond::Other(vec![left, right])
                });
            }
        }
        // A predicate of its own: a function such as begins_with, or a boolean attribute.
        Ok(Cond::Other(vec![left]))
    }

    /// `[a, b]` or `(a, b)`.
    fn list(&mut self) -> Result<Vec<Operand>, Refusal> {
        if self.eat_sym("[") {
            self.operands_to("]")
        } else if self.eat_sym("(") {
            self.operands_to(")")
        } else {
            Err(self.expect("[ or ( after IN"))
        }
    }

    /// Operands separated by commas, up to and past `close` (its opening bracket already read).
    fn operands_to(&mut self, close: &str) -> Result<Vec<Operand>, Refusal> {
        let mut operands = Vec::new();
        if self.eat_sym(close) {
            return Ok(operands);
        }
        loop {
            operands.push(self.operand()?);
            if self.eat_sym(close) {
                return Ok(operands);
            }
            if !self.eat_sym(",") {
                return Err(self.expect(&format!(", or {close}")));
            }
        }
    }

    /// A value: a primary one, or several joined by `+` / `-` (computed, so never a literal).
    fn operand(&mut self) -> Result<Operand, Refusal> {
        let first = self.primary()?;
        if !matches!(self.peek(), Some(Tok::Sym("+" | "-"))) {
            return Ok(first);
        }
        let mut parts = vec![first];
        while self.eat_sym("+") || self.eat_sym("-") {
            parts.push(self.primary()?);
        }
        Ok(Operand::Call(parts))
    }

    fn primary(&mut self) -> Result<Operand, Refusal> {
        match self.next() {
            Some(Tok::Str(literal) | Tok::Num(literal)) => Ok(Operand::Literal(literal)),
            Some(Tok::Sym("-")) => match self.next() {
                Some(Tok::Num(number)) => Ok(Operand::Literal(format!("-{number}"))),
                _ => {
                    self.at -= 1;
                    Err(self.expect("a number after -"))
                }
            },
            Some(Tok::Sym(open @ ("[" | "{" | "<<"))) => {
                self.collection(open)?;
                Ok(Operand::Value)
            }
            Some(Tok::Word(word)) if is_value_word(&word) => Ok(Operand::Value),
            Some(Tok::Word(word)) if !is_keyword(&word) && self.eat_sym("(") => {
                Ok(Operand::Call(self.operands_to(")")?))
            }
            Some(Tok::Word(name) | Tok::Quoted(name))
                if !is_keyword(&name) || self.quoted_before() =>
            {
                self.path(name)
            }
            _ => {
                self.at -= 1;
                Err(self.expect("a value or an attribute"))
            }
        }
    }

    /// The rest of a collection literal opened by `open` (already read): only literal values,
    /// nested collections among them, and in a map `'key': value` pairs. A name, a keyword or
    /// a call inside one is refused: DynamoDB would read it as something else than a value.
    fn collection(&mut self, open: &str) -> Result<(), Refusal> {
        let close = closing(open).unwrap_or(")");
        if self.eat_sym(close) {
            return Ok(());
        }
        loop {
            if open == "{" {
                if !matches!(self.next(), Some(Tok::Str(_))) {
                    self.at -= 1;
                    return Err(self.expect("a 'quoted' key in a map literal"));
                }
                if !self.eat_sym(":") {
                    return Err(self.expect(": in a map literal"));
                }
            }
            self.literal_value()?;
            if self.eat_sym(close) {
                return Ok(());
            }
            if !self.eat_sym(",") {
                return Err(self.expect(&format!(", or {close} in a literal")));
            }
        }
    }

    fn literal_value(&mut self) -> Result<(), Refusal> {
        match self.next() {
            Some(Tok::Str(_) | Tok::Num(_)) => Ok(()),
            Some(Tok::Sym("-")) if matches!(self.peek(), Some(Tok::Num(_))) => {
                self.at += 1;
                Ok(())
            }
            Some(Tok::Word(word)) if is_value_word(&word) => Ok(()),
            Some(Tok::Sym(open @ ("[" | "{" | "<<"))) => self.collection(open),
            _ => {
                self.at -= 1;
                Err(Refusal::Malformed(format!(
                    "a collection literal holds only literal values, not {}",
                    self.peek().map_or("the end".to_owned(), Tok::to_string)
                )))
            }
        }
    }

    /// Whether the token just read was a quoted name (which may spell a keyword).
    fn quoted_before(&self) -> bool {
        matches!(self.tokens.get(self.at - 1), Some(Tok::Quoted(_)))
    }

    /// The rest of a path after its first name: `.name` and `[n]` steps make it nested.
    fn path(&mut self, name: String) -> Result<Operand, Refusal> {
        let mut nested = false;
        loop {
            if self.eat_sym(".") {
                if self.name().is_none() {
                    return Err(self.expect("a name after ."));
                }
            } else if self.eat_sym("[") {
                if !matches!(self.next(), Some(Tok::Num(_) | Tok::Str(_))) || !self.eat_sym("]") {
                    self.at -= 1;
                    return Err(self.expect("a number or a 'quoted' name in a path's [ ]"));
                }
            } else {
                break;
            }
            nested = true;
        }
        Ok(if nested {
            Operand::Nested(name)
        } else {
            Operand::Key(name)
        })
    }
}

/// The bracket that closes `open`; `None` when it opens nothing.
fn closing(open: &str) -> Option<&'static str> {
    match open {
        "(" => Some(")"),
        "[" => Some("]"),
        "{" => Some("}"),
        "<<" => Some(">>"),
        _ => None,
    }
}

/// TRUE, FALSE, NULL, MISSING: values written as words.
fn is_value_word(word: &str) -> bool {
    ["TRUE", "FALSE", "NULL", "MISSING"]
        .iter()
        .any(|v| v.eq_ignore_ascii_case(word))
}

fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}
