//! The statement checker: every refusal decided from the text, with the reason named.

use store_ops::partiql::{Checked, Refusal, Target, check};

const TABLE: &str = "AppTable";

fn accepted(statement: &str) -> Checked {
    check(statement, TABLE, false).unwrap_or_else(|refusal| panic!("{statement}: {refusal}"))
}

fn refused(statement: &str) -> Refusal {
    match check(statement, TABLE, false) {
        Ok(checked) => panic!("{statement} was accepted: {checked:?}"),
        Err(refusal) => refusal,
    }
}

/// A scan refusal's reason, checked to name `key`.
fn scan(statement: &str, key: &str) -> String {
    match refused(statement) {
        Refusal::Scan {
            key: named, why, ..
        } => {
            assert_eq!(named, key, "{statement}");
            why
        }
        other => panic!("{statement}: {other:?}, not a scan"),
    }
}

fn partitions(statement: &str) -> Vec<String> {
    accepted(statement).partitions.expect("partitions")
}

#[test]
fn a_partition_key_fixed_by_equality_is_a_read_of_that_partition() {
    for statement in [
        r#"SELECT * FROM "AppTable" WHERE PK = 'CUSTOMER#c1'"#,
        r#"select * from AppTable where PK = 'CUSTOMER#c1' and begins_with(SK, 'ORDER#')"#,
        r#"SELECT * FROM "AppTable" WHERE 'CUSTOMER#c1' = PK"#,
        r#"SELECT * FROM "AppTable" WHERE "PK" = 'CUSTOMER#c1';"#,
        r#"SELECT PK, "total", a.b[0] FROM "AppTable" WHERE (PK = 'CUSTOMER#c1' AND SK > 'O') AND size(x) > 1"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'CUSTOMER#c1' AND SK BETWEEN 'ORDER#' AND 'ORDER$' ORDER BY SK DESC"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'CUSTOMER#c1' AND (SK = 'PROFILE' OR attribute_exists(x))"#,
        r#"SELECT * FROM "AppTable" WHERE status IS NOT MISSING AND NOT SK = 'x' AND PK = 'CUSTOMER#c1'"#,
    ] {
        let checked = accepted(statement);
        assert_eq!(checked.target, Target::Table, "{statement}");
        assert_eq!(
            checked.partitions,
            Some(vec!["CUSTOMER#c1".to_string()]),
            "{statement}"
        );
    }
}

#[test]
fn quoting_is_undone_and_keywords_inside_strings_are_values() {
    assert_eq!(
        partitions(r#"SELECT * FROM "AppTable" WHERE PK = 'O''Brien'"#),
        ["O'Brien"]
    );
    assert_eq!(
        partitions(r#"SELECT * FROM "AppTable" WHERE PK = 'SELECT x FROM y WHERE OR'"#),
        ["SELECT x FROM y WHERE OR"]
    );
    // A quoted name may spell a keyword; it is still a name, not the key.
    scan(r#"SELECT * FROM "AppTable" WHERE "WHERE" = 'x'"#, "PK");
    // A quoted name is the attribute it spells, case included.
    scan(r#"SELECT * FROM "AppTable" WHERE "pk" = 'x'"#, "PK");
    assert!(matches!(
        refused(r#"SELECT * FROM "AppTable" WHERE PK = 'unclosed"#),
        Refusal::Malformed(_)
    ));
}

#[test]
fn in_and_or_name_several_partitions() {
    assert_eq!(
        partitions(r#"SELECT * FROM "AppTable" WHERE PK IN ['a', 'b']"#),
        ["a", "b"]
    );
    assert_eq!(
        partitions(r#"SELECT * FROM "AppTable" WHERE PK IN ('a', 'b') AND SK = 'c'"#),
        ["a", "b"]
    );
    assert_eq!(
        partitions(r#"SELECT * FROM "AppTable" WHERE PK = 'a' OR PK = 'b'"#),
        ["a", "b"]
    );
    assert_eq!(
        partitions(
            r#"SELECT * FROM "AppTable" WHERE (PK = 'a' AND SK = 'x') OR (PK IN ['b'] AND SK = 'y')"#
        ),
        ["a", "b"]
    );
    // An empty IN, or one with an attribute among its values, fixes nothing.
    scan(r#"SELECT * FROM "AppTable" WHERE PK IN []"#, "PK");
    scan(r#"SELECT * FROM "AppTable" WHERE PK IN ['a', SK]"#, "PK");
    let why = scan(
        r#"SELECT * FROM "AppTable" WHERE PK = 'a' OR status = 'PLACED'"#,
        "PK",
    );
    assert!(why.contains("OR"), "{why}");
}

#[test]
fn a_statement_that_fixes_no_partition_is_a_scan_refused_with_what_is_missing() {
    let why = scan(r#"SELECT * FROM "AppTable""#, "PK");
    assert!(why.contains("no WHERE"), "{why}");
    let why = scan(r#"SELECT * FROM "AppTable" WHERE status = 'PLACED'"#, "PK");
    assert!(why.contains("does not name PK"), "{why}");
    for statement in [
        r#"SELECT * FROM "AppTable" WHERE PK > 'CUSTOMER#'"#,
        r#"SELECT * FROM "AppTable" WHERE PK <> 'CUSTOMER#c1'"#,
        r#"SELECT * FROM "AppTable" WHERE begins_with(PK, 'CUSTOMER#')"#,
        r#"SELECT * FROM "AppTable" WHERE NOT PK = 'CUSTOMER#c1'"#,
        r#"SELECT * FROM "AppTable" WHERE PK NOT IN ['CUSTOMER#c1']"#,
        r#"SELECT * FROM "AppTable" WHERE PK = SK"#,
        r#"SELECT * FROM "AppTable" WHERE PK.x = 'a'"#,
        r#"SELECT * FROM "AppTable" WHERE PK BETWEEN 'a' AND 'b'"#,
    ] {
        let why = scan(statement, "PK");
        assert!(
            why.contains("not compared with = or IN"),
            "{statement}: {why}"
        );
    }
    // The message says how to fix it, and how to run it anyway.
    let message = refused(r#"SELECT * FROM "AppTable""#).to_string();
    assert!(
        message.contains("full scan of the table \"AppTable\""),
        "{message}"
    );
    assert!(
        message.contains("PK = '…'") && message.contains("--allow-scan"),
        "{message}"
    );
}

#[test]
fn an_index_is_read_by_its_own_partition_key() {
    let checked = accepted(
        r#"SELECT * FROM "AppTable"."GSI1" WHERE GSI1PK = 'STATUS#PLACED' ORDER BY GSI1SK"#,
    );
    assert_eq!(checked.target, Target::Index("GSI1"));
    let checked = accepted(
        r#"SELECT * FROM AppTable.GSI2 WHERE GSI2PK IN ['PRODUCT#sku-1'] ORDER BY GSI2SK DESC"#,
    );
    assert_eq!(checked.target, Target::Index("GSI2"));
    // The table's key does not fix an index's partition, nor an index's key the table's.
    scan(
        r#"SELECT * FROM "AppTable"."GSI1" WHERE PK = 'CUSTOMER#c1'"#,
        "GSI1PK",
    );
    scan(
        r#"SELECT * FROM "AppTable"."GSI2" WHERE GSI1PK = 'STATUS#PLACED'"#,
        "GSI2PK",
    );
    scan(
        r#"SELECT * FROM "AppTable" WHERE GSI1PK = 'STATUS#PLACED'"#,
        "PK",
    );
    let message = refused(r#"SELECT * FROM "AppTable"."GSI1""#).to_string();
    assert!(
        message.contains(r#"the index "AppTable"."GSI1""#),
        "{message}"
    );
    assert_eq!(
        refused(r#"SELECT * FROM "AppTable"."GSI4" WHERE GSI4PK = 'x'"#),
        Refusal::UnknownIndex("GSI4".into())
    );
}

#[test]
fn only_selects_on_the_table_it_was_pointed_at_are_sent() {
    for (statement, word) in [
        (
            r#"UPDATE "AppTable" SET status = 'X' WHERE PK = 'a' AND SK = 'b'"#,
            "UPDATE",
        ),
        (
            r#"delete FROM "AppTable" WHERE PK = 'a' AND SK = 'b'"#,
            "DELETE",
        ),
        (
            r#"INSERT INTO "AppTable" VALUE {'PK': 'a', 'SK': 'b'}"#,
            "INSERT",
        ),
        (
            r#"EXISTS(SELECT * FROM "AppTable" WHERE PK = 'a')"#,
            "EXISTS",
        ),
    ] {
        assert_eq!(
            refused(statement),
            Refusal::NotSelect(word.into()),
            "{statement}"
        );
        assert!(refused(statement).to_string().contains("only SELECT"));
    }
    assert_eq!(
        refused(r#"SELECT * FROM "Other" WHERE PK = 'a'"#),
        Refusal::OtherTable {
            named: "Other".into(),
            table: TABLE.into()
        }
    );
    for statement in [
        "",
        "   ",
        r#"SELECT * FROM "AppTable" WHERE PK = ?"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'a'; DELETE FROM "AppTable" WHERE PK = 'a'"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'a' LIMIT 5"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'a' -- a comment"#,
        r#"SELECT FROM "AppTable" WHERE PK = 'a'"#,
        r#"SELECT * "AppTable" WHERE PK = 'a'"#,
        r#"SELECT * FROM "AppTable" WHERE (PK = 'a'"#,
        r#"SELECT * FROM "AppTable" WHERE PK = 'a' ORDER SK"#,
    ] {
        assert!(
            matches!(refused(statement), Refusal::Malformed(_)),
            "{statement:?}"
        );
    }
}

#[test]
fn allow_scan_lets_a_scan_through_and_nothing_else() {
    let checked = check(r#"SELECT * FROM "AppTable""#, TABLE, true).expect("allowed");
    assert_eq!(
        checked,
        Checked {
            target: Target::Table,
            partitions: None
        }
    );
    // A fixed partition is still reported as one.
    let checked =
        check(r#"SELECT * FROM "AppTable" WHERE PK = 'a'"#, TABLE, true).expect("allowed");
    assert_eq!(checked.partitions, Some(vec!["a".to_string()]));
    assert!(matches!(
        check(
            r#"UPDATE "AppTable" SET a = 1 WHERE PK = 'a' AND SK = 'b'"#,
            TABLE,
            true
        ),
        Err(Refusal::NotSelect(_))
    ));
    assert!(matches!(
        check(r#"SELECT * FROM "Other""#, TABLE, true),
        Err(Refusal::OtherTable { .. })
    ));
}

/// The checker splits the text where DynamoDB's lexer does: `--` is always a comment, so a
/// number cannot swallow it, and a comment hides nothing from the check because it is refused.
#[test]
fn comments_are_refused_wherever_they_are_and_numbers_end_where_dynamodb_ends_them() {
    for statement in [
        "SELECT * FROM \"AppTable\" WHERE 1=1-- AND PK = 'CUSTOMER#c1'",
        "SELECT * FROM \"AppTable\".\"GSI1\" WHERE 1=1-- AND GSI1PK = 'STATUS#PLACED'",
        "SELECT * FROM \"AppTable\" WHERE 1=1 --\nAND PK = 'CUSTOMER#c1'",
        "SELECT * FROM \"AppTable\" WHERE PK = 'CUSTOMER#c1' /* a note */",
        "SELECT * /* FROM \"Other\" */ FROM \"AppTable\" WHERE PK = 'a'",
    ] {
        let refusal = refused(statement);
        assert!(
            matches!(&refusal, Refusal::Malformed(why) if why.contains("comments")),
            "{statement}: {refusal:?}"
        );
    }
    for statement in [
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND size(x) = 1e5x",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x = 1.5.2",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x = 12abc",
    ] {
        let refusal = refused(statement);
        assert!(
            matches!(&refusal, Refusal::Malformed(why) if why.contains("runs straight into")),
            "{statement}: {refusal:?}"
        );
    }
    // Numbers DynamoDB reads are still read, and -- inside a string is text.
    assert_eq!(
        partitions("SELECT * FROM \"AppTable\" WHERE PK = 'a--b' AND x > -1.5e-3 AND y = 2 - 1"),
        ["a--b"]
    );
}

/// A collection literal holds values only, so nothing inside one can name another table.
#[test]
fn a_collection_literal_or_a_projection_can_hide_no_from() {
    for statement in [
        "SELECT [1, FROM \"Other\"] FROM \"AppTable\" WHERE PK = 'a'",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x IN [1, SELECT]",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x = {'k': FROM}",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x = <<y>>",
        "SELECT a[FROM \"Other\"] FROM \"AppTable\" WHERE PK = 'a'",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a'; SELECT * FROM \"Other\"",
    ] {
        assert!(
            matches!(refused(statement), Refusal::Malformed(_)),
            "{statement}"
        );
    }
    // Literal collections, and paths with indexes, are read as before.
    assert_eq!(
        partitions(
            "SELECT a.b[0], c['k'] FROM \"AppTable\" WHERE PK = 'a' AND x IN [[1, 2], {'k': <<'v', -3>>}, TRUE, NULL]"
        ),
        ["a"]
    );
}

/// Every AND of the disjunctive form must fix the partition key exactly once.
#[test]
fn two_different_conditions_on_the_partition_key_are_a_scan() {
    for statement in [
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND PK = 'b'",
        "SELECT * FROM \"AppTable\" WHERE (PK = 'a' OR SK = 'x') AND PK = 'b'",
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND PK IN ['a', 'b']",
        "SELECT * FROM \"AppTable\" WHERE PK IN ['a'] AND PK IN ['b']",
        "SELECT * FROM \"AppTable\".\"GSI1\" WHERE GSI1PK = 'STATUS#PLACED' AND GSI1PK = 'STATUS#SHIPPED'",
    ] {
        let key = if statement.contains("GSI1") {
            "GSI1PK"
        } else {
            "PK"
        };
        let why = scan(statement, key);
        assert!(why.contains(key), "{statement}: {why}");
    }
    let why = scan(
        "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND begins_with(PK, 'a')",
        "PK",
    );
    assert!(why.contains("another way"), "{why}");
    // The same value twice is one partition; an OR of ANDs that each fix it is several.
    assert_eq!(
        partitions("SELECT * FROM \"AppTable\" WHERE PK = 'a' AND PK = 'a'"),
        ["a"]
    );
    assert_eq!(
        partitions(
            "SELECT * FROM \"AppTable\" WHERE (PK = 'a' OR PK = 'b') AND (SK = 'x' OR SK = 'y')"
        ),
        ["a", "b"]
    );
}

#[test]
fn deep_nesting_is_refused_with_a_reason_not_a_crash() {
    for statement in [
        format!(
            "SELECT * FROM \"AppTable\" WHERE {}PK = 'a'{}",
            "(".repeat(3000),
            ")".repeat(3000)
        ),
        format!(
            "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND x = {}1{}",
            "[".repeat(3000),
            "]".repeat(3000)
        ),
        format!(
            "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND {}x = 1",
            "NOT ".repeat(3000)
        ),
    ] {
        let refusal = refused(&statement);
        assert!(
            matches!(&refusal, Refusal::Malformed(why) if why.contains("nested more than")),
            "{refusal:?}"
        );
    }
    // 64 deep is still read.
    let nested = format!(
        "SELECT * FROM \"AppTable\" WHERE {}PK = 'a'{}",
        "(".repeat(64),
        ")".repeat(64)
    );
    assert_eq!(partitions(&nested), ["a"]);
}

#[test]
fn more_values_than_dynamodb_takes_are_refused_before_any_request() {
    let values = |n: usize| {
        (0..n)
            .map(|i| format!("'v{i}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    assert_eq!(
        partitions(&format!(
            "SELECT * FROM \"AppTable\" WHERE PK IN [{}]",
            values(50)
        ))
        .len(),
        50
    );
    for statement in [
        format!("SELECT * FROM \"AppTable\" WHERE PK IN [{}]", values(51)),
        format!(
            "SELECT * FROM \"AppTable\" WHERE PK = 'a' AND status IN [{}]",
            values(101)
        ),
        (0..51)
            .map(|i| format!("PK = 'v{i}'"))
            .collect::<Vec<_>>()
            .join(" OR ")
            .replace("PK = 'v0'", "SELECT * FROM \"AppTable\" WHERE PK = 'v0'"),
    ] {
        let refusal = refused(&statement);
        assert!(
            matches!(&refusal, Refusal::Malformed(why) if why.contains("at most")),
            "{refusal:?}"
        );
    }
}

/// A small deterministic generator, so that a failing case can be replayed from its seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        choices[self.below(choices.len())]
    }
}

/// A statement from the grammar the checker accepts, as tokens.
fn generated(rng: &mut Lcg) -> Vec<String> {
    let mut tokens: Vec<String> = vec!["SELECT".into()];
    match rng.below(3) {
        0 => tokens.push("*".into()),
        1 => tokens.extend(["PK", ",", "\"total\""].map(String::from)),
        _ => tokens.extend(["a", ".", "b", "[", "0", "]"].map(String::from)),
    }
    tokens.push("FROM".into());
    let index = rng.below(3) == 0;
    tokens.push("\"AppTable\"".into());
    if index {
        tokens.extend([".", "\"GSI1\""].map(String::from));
    }
    let key = if index { "GSI1PK" } else { "PK" };
    if rng.below(6) > 0 {
        tokens.push("WHERE".into());
        condition(rng, key, 0, &mut tokens);
    }
    if rng.below(3) == 0 {
        tokens.push(";".into());
    }
    tokens
}

fn condition(rng: &mut Lcg, key: &str, depth: usize, out: &mut Vec<String>) {
    let choice = if depth > 2 {
        rng.below(3)
    } else {
        rng.below(6)
    };
    match choice {
        0 => out.extend([key, "=", rng.pick(&["'a'", "'b'", "'c#1'"])].map(String::from)),
        1 => out.extend([key, "IN", "[", "'a'", ",", "'b'", "]"].map(String::from)),
        2 => {
            let atom: &[&str] = match rng.below(5) {
                0 => &["SK", ">", "'x'"],
                1 => &["begins_with", "(", "SK", ",", "'O'", ")"],
                2 => &["status", "IS", "NOT", "MISSING"],
                3 => &["NOT", "SK", "=", "'x'"],
                _ => &["size", "(", "x", ")", ">", "-1.5e2"],
            };
            out.extend(atom.iter().map(|t| t.to_string()));
        }
        3 | 4 => {
            condition(rng, key, depth + 1, out);
            out.push(if choice == 3 { "AND" } else { "OR" }.into());
            condition(rng, key, depth + 1, out);
        }
        _ => {
            out.push("(".into());
            condition(rng, key, depth + 1, out);
            out.push(")".into());
        }
    }
}

/// The checker's decision on a statement: the partitions it reads, or the kind of refusal.
fn decision(statement: &str) -> String {
    match check(statement, TABLE, false) {
        Ok(checked) => format!("{:?} {:?}", checked.target, checked.partitions),
        Err(Refusal::Scan { key, .. }) => format!("scan of {key}"),
        Err(other) => format!("refused: {other}"),
    }
}

/// Statements generated from the accepted grammar, re-spaced: the same decision as spelled
/// plainly. With a comment put anywhere between two tokens: refused, never another decision.
#[test]
fn respacing_never_changes_the_decision_and_a_comment_anywhere_is_refused() {
    let spaces = [" ", "  ", "\t", "\n", " \r\n ", "\x0C"];
    let comments = ["-- hidden\n", "/* hidden */", "--\n", "/**/"];
    for seed in 1..=2_000u64 {
        let mut rng = Lcg(seed);
        let tokens = generated(&mut rng);
        let plain = tokens.join(" ");
        let expected = decision(&plain);
        assert!(
            !expected.starts_with("refused"),
            "seed {seed}: {plain}: {expected}"
        );
        let respaced: String = tokens
            .iter()
            .map(|t| format!("{t}{}", rng.pick(&spaces)))
            .collect();
        assert_eq!(decision(&respaced), expected, "seed {seed}: {respaced:?}");
        let at = 1 + rng.below(tokens.len());
        let mut commented = tokens.clone();
        commented.insert(at.min(tokens.len()), rng.pick(&comments).to_owned());
        let commented = commented.join(" ");
        let got = decision(&commented);
        assert!(
            got.contains("comments are not supported"),
            "seed {seed}: {commented:?}: {got}"
        );
    }
}

/// docs/checkout.md's `make query` of the unread provider events, as the docs print it.
#[test]
fn the_docs_listing_of_unread_events_is_a_read_of_one_gsi1_partition() {
    let doc = include_str!("../../../docs/checkout.md");
    let line = doc
        .lines()
        .find(|l| l.starts_with("$ make -s query Q=") && l.contains("UNREAD_EVENTS"))
        .expect("the command in docs/checkout.md");
    let quoted = line
        .strip_prefix("$ make -s query Q=\"")
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Q=\"...\"");
    // As the shell hands it to make: the escaped quotes are quotes.
    let statement = quoted.replace("\\\"", "\"");
    assert_eq!(partitions(&statement), ["UNREAD_EVENTS"]);
    assert_eq!(accepted(&statement).target, Target::Index("GSI1"));
}
