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
        refused(r#"SELECT * FROM "AppTable"."GSI3" WHERE GSI3PK = 'x'"#),
        Refusal::UnknownIndex("GSI3".into())
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
