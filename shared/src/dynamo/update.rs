//! Each kind of write declared as data, in its entity's file: an [`UpdateSpec`] says what an
//! UpdateItem may set, add or remove and which attributes its conditions may read; a
//! [`PutSpec`] what a PutItem writes; a [`DeleteSpec`] what a DeleteItem's condition reads.
//! The UpdateItem's expression and placeholders are rendered from the spec ([`Change`]), never
//! written by hand, and the same specs are what each function declares it sends
//! (`crate::permissions`), which template-tests holds template.yaml's grants to.
//!
//! Placeholders are the attribute's own name: `#status` names `status`, `:status` is the value
//! it is set to; a condition's values take names of their own (`:current`).

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure, Update};

use crate::AppError;
use crate::dynamo::codec::{Attr, Item, Stored};
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::store::built;

/// One kind of UpdateItem on an entity: the attributes it may set, set only where absent, add
/// to and remove, and those its conditions may read beyond them. An update sent may do less
/// (a clause left out), never more.
#[derive(Debug, PartialEq, Eq)]
pub struct UpdateSpec {
    /// The entity it updates.
    pub entity: Entity,
    /// `SET #a = :a`.
    pub set: &'static [&'static str],
    /// `SET #a = if_not_exists(#a, :a)`.
    pub set_if_absent: &'static [&'static str],
    /// `ADD #a :a` (a number: negative takes away).
    pub add: &'static [&'static str],
    /// `REMOVE #a`.
    pub remove: &'static [&'static str],
    /// Attributes its conditions read and it does not write.
    pub checks: &'static [&'static str],
}

impl UpdateSpec {
    /// An update of `entity` that touches nothing yet (fill the lists in with struct update
    /// syntax: `UpdateSpec { set: &[..], ..UpdateSpec::of(Entity::Customer) }`).
    pub const fn of(entity: Entity) -> Self {
        Self {
            entity,
            set: &[],
            set_if_absent: &[],
            add: &[],
            remove: &[],
            checks: &[],
        }
    }

    /// Every attribute an update of this kind may name, keys included: what IAM's
    /// `dynamodb:Attributes` must allow.
    pub fn attributes(&self) -> Vec<&'static str> {
        let mut all = vec![keys::PK, keys::SK];
        for list in [
            self.set,
            self.set_if_absent,
            self.add,
            self.remove,
            self.checks,
        ] {
            all.extend_from_slice(list);
        }
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Whether an update of this kind may name `name` (what [`UpdateSpec::attributes`] lists,
    /// without building the list: a write's hot path asks this).
    fn names(&self, name: &str) -> bool {
        name == keys::PK
            || name == keys::SK
            || [
                self.set,
                self.set_if_absent,
                self.add,
                self.remove,
                self.checks,
            ]
            .iter()
            .any(|list| list.contains(&name))
    }

    /// An update of this kind of the item at `key`, in `table`.
    pub fn on(&'static self, table: &str, key: Item) -> Change {
        Change {
            specs: vec![self],
            table: table.to_owned(),
            key,
            clauses: Vec::new(),
            entries: Vec::new(),
            conditions: Vec::new(),
            values: Vec::new(),
            return_old_on_failure: false,
        }
    }
}

/// What a PutItem of an entity writes: its attributes, keys included (its codec's `to_item`,
/// tested to write no other).
#[derive(Debug, PartialEq, Eq)]
pub struct PutSpec {
    /// The entity it writes.
    pub entity: Entity,
    /// Every attribute it may write, keys included.
    pub attributes: &'static [&'static str],
}

/// A DeleteItem of an entity, and what its condition reads.
#[derive(Debug, PartialEq, Eq)]
pub struct DeleteSpec {
    /// The entity it deletes.
    pub entity: Entity,
    /// The attributes its condition reads.
    pub checks: &'static [&'static str],
}

impl DeleteSpec {
    /// Every attribute it names, keys included.
    pub fn attributes(&self) -> Vec<&'static str> {
        let mut all = vec![keys::PK, keys::SK];
        all.extend_from_slice(self.checks);
        all
    }
}

/// How an attribute is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clause {
    Set,
    SetIfAbsent,
    Add,
    Remove,
}

/// An UpdateItem being built from its specs: the values it sets, its conditions, and their
/// values. [`Change::build`] renders the expression and refuses anything its specs do not
/// declare.
#[derive(Debug, Clone)]
pub struct Change {
    specs: Vec<&'static UpdateSpec>,
    table: String,
    key: Item,
    clauses: Vec<(Clause, &'static str, Option<AttributeValue>)>,
    /// Numbers added to entries of map attributes: the map, the entry's key, what is added.
    entries: Vec<(&'static str, String, AttributeValue)>,
    conditions: Vec<String>,
    values: Vec<(String, AttributeValue)>,
    return_old_on_failure: bool,
}

impl Change {
    /// The same update, doing what `spec` declares as well (a payment's header update is the
    /// status change's, and the payment).
    pub fn and(mut self, spec: &'static UpdateSpec) -> Self {
        self.specs.push(spec);
        self
    }

    /// The same update, doing what `other` (another update of the same item) does too: its
    /// specs, clauses, conditions and values.
    pub fn merge(mut self, other: Change) -> Self {
        debug_assert_eq!(self.key, other.key, "a merge of updates of two items");
        self.specs.extend(other.specs);
        self.clauses.extend(other.clauses);
        self.entries.extend(other.entries);
        self.conditions.extend(other.conditions);
        self.values.extend(other.values);
        self.return_old_on_failure |= other.return_old_on_failure;
        self
    }

    /// `SET #a = :a`.
    pub fn set<T: Stored>(self, attr: &Attr<T>, value: &T) -> Self {
        self.clause(Clause::Set, attr.name, Some(attr.value(value)))
    }

    /// `SET #a = if_not_exists(#a, :a)`.
    pub fn set_if_absent<T: Stored>(self, attr: &Attr<T>, value: &T) -> Self {
        self.clause(Clause::SetIfAbsent, attr.name, Some(attr.value(value)))
    }

    /// `ADD #a :a`.
    pub fn add<T: Stored>(self, attr: &Attr<T>, value: &T) -> Self {
        self.clause(Clause::Add, attr.name, Some(attr.value(value)))
    }

    /// `REMOVE #a`.
    pub fn remove<T: Stored>(self, attr: &Attr<T>) -> Self {
        self.clause(Clause::Remove, attr.name, None)
    }

    /// `ADD #map.#map_<n> :map_<n>`: `value` added to the entry `key` of the map attribute
    /// `map`, which must exist (the entry need not); `n` counts this update's entries from 0.
    /// A condition names the entry as [`Change::entry`] spells it. The spec declares `map`
    /// under `add`.
    pub fn add_to_entry(mut self, map: &Attr<Item>, key: &str, value: i64) -> Self {
        self.entries.push((
            map.name,
            key.to_owned(),
            AttributeValue::N(value.to_string()),
        ));
        self
    }

    /// How a condition names the `n`th entry [`Change::add_to_entry`] adds to, in `map`:
    /// `#held.#held_0`.
    pub fn entry(map: &Attr<Item>, n: usize) -> String {
        format!("#{0}.#{0}_{n}", map.name)
    }

    fn clause(mut self, clause: Clause, name: &'static str, value: Option<AttributeValue>) -> Self {
        self.clauses.push((clause, name, value));
        self
    }

    /// A condition, ANDed with the others: `#name` placeholders name attributes, `:name` ones
    /// values (bound with [`Change::value`], or those the update sets).
    pub fn condition(mut self, condition: impl Into<String>) -> Self {
        self.conditions.push(condition.into());
        self
    }

    /// On the condition that the item's event counter `counter` is still `read` (0: never
    /// counted, as the sample data's items, which no event told, have no counter at all).
    pub fn counter_still(self, counter: &Attr<u64>, read: u64) -> Self {
        let name = counter.name;
        let condition = if read == 0 {
            format!("attribute_not_exists(#{name}) OR #{name} = :read")
        } else {
            format!("#{name} = :read")
        };
        self.condition(condition).value(":read", counter, &read)
    }

    /// The value of a condition's placeholder `:name`, typed as `attr` stores it.
    pub fn value<T: Stored>(self, placeholder: &'static str, attr: &Attr<T>, value: &T) -> Self {
        self.value_named(placeholder.to_owned(), attr, value)
    }

    /// [`Change::value`], for a placeholder made at run time (one per entry: `:room_0`).
    pub fn value_named<T: Stored>(
        mut self,
        placeholder: String,
        attr: &Attr<T>,
        value: &T,
    ) -> Self {
        self.values.push((placeholder, attr.value(value)));
        self
    }

    /// The item as it stands comes back when a condition fails.
    pub fn returning_old_on_failure(mut self) -> Self {
        self.return_old_on_failure = true;
        self
    }

    /// Whether a spec declares `name` under `clause`.
    fn declares(&self, clause: Clause, name: &str) -> bool {
        self.specs.iter().any(|spec| {
            let list = match clause {
                Clause::Set => spec.set,
                Clause::SetIfAbsent => spec.set_if_absent,
                Clause::Add => spec.add,
                Clause::Remove => spec.remove,
            };
            list.contains(&name)
        })
    }

    fn refuse(&self, what: String) -> AppError {
        AppError::internal(format!(
            "an update of {:?} that its spec does not declare: {what}",
            self.specs.first().map(|spec| spec.entity)
        ))
    }

    /// The update expression, rendered clause by clause in the order SET, ADD, REMOVE.
    fn expression(&self) -> String {
        let mut sets = Vec::new();
        let mut adds = Vec::new();
        let mut removes = Vec::new();
        for (clause, name, _) in &self.clauses {
            match clause {
                Clause::Set => sets.push(format!("#{name} = :{name}")),
                Clause::SetIfAbsent => {
                    sets.push(format!("#{name} = if_not_exists(#{name}, :{name})"))
                }
                Clause::Add => adds.push(format!("#{name} :{name}")),
                Clause::Remove => removes.push(format!("#{name}")),
            }
        }
        for (n, (map, _, _)) in self.entries.iter().enumerate() {
            adds.push(format!("#{map}.#{map}_{n} :{map}_{n}"));
        }
        let mut parts = Vec::new();
        for (word, list) in [("SET", sets), ("ADD", adds), ("REMOVE", removes)] {
            if !list.is_empty() {
                parts.push(format!("{word} {}", list.join(", ")));
            }
        }
        parts.join(" ")
    }

    /// The UpdateItem as an action of a transaction (sent alone: [`Change::request`]), its
    /// expression rendered from the specs: refused when it names an attribute or a value its
    /// specs do not declare, leaves a placeholder unbound, or is for an item of another entity.
    pub fn build(self) -> Result<UpdateBuilder, AppError> {
        self.check_declared()?;
        let expression = self.expression();
        let condition = match self.conditions.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            many => Some(
                many.iter()
                    .map(|c| format!("({c})"))
                    .collect::<Vec<_>>()
                    .join(" AND "),
            ),
        };
        let condition_text = condition.as_deref().unwrap_or("");
        let names = self.names(&expression, condition_text)?;
        let values = self.values(&expression, condition_text)?;
        let mut update = Update::builder()
            .table_name(self.table)
            .set_key(Some(self.key))
            .update_expression(expression)
            .set_condition_expression(condition);
        for (placeholder, name) in names {
            update = update.expression_attribute_names(placeholder, name);
        }
        for (placeholder, value) in values {
            update = update.expression_attribute_values(placeholder, value);
        }
        if self.return_old_on_failure {
            update = update.return_values_on_condition_check_failure(
                ReturnValuesOnConditionCheckFailure::AllOld,
            );
        }
        Ok(update)
    }

    /// Refused unless the key is of the specs' one entity and every clause and map entry is
    /// one they declare.
    fn check_declared(&self) -> Result<(), AppError> {
        let entity = self.specs.first().map(|spec| spec.entity);
        let keyed = key_text(&self.key, keys::PK).zip(key_text(&self.key, keys::SK));
        if keyed.and_then(|(pk, sk)| Entity::of(pk, sk)) != entity {
            return Err(self.refuse(format!("the key {:?}", self.key)));
        }
        if self.specs.iter().any(|spec| Some(spec.entity) != entity) {
            return Err(self.refuse("specs of two entities".to_owned()));
        }
        if let Some((clause, name, _)) =
            (self.clauses.iter()).find(|(clause, name, _)| !self.declares(*clause, name))
        {
            return Err(self.refuse(format!("{clause:?} {name}")));
        }
        if let Some((map, _, _)) =
            (self.entries.iter()).find(|(map, _, _)| !self.declares(Clause::Add, map))
        {
            return Err(self.refuse(format!("Add to an entry of {map}")));
        }
        Ok(())
    }

    /// Each `#name` placeholder and what it names: an attribute (a condition's only if a spec
    /// declares it), or a map entry's key (`#held_0` names the entry `sku-1`).
    fn names(&self, expression: &str, condition: &str) -> Result<Vec<(String, String)>, AppError> {
        let entries: Vec<(String, &str)> = (self.entries.iter().enumerate())
            .map(|(n, (map, key, _))| (format!("{map}_{n}"), key.as_str()))
            .collect();
        let entry = |name: &str| entries.iter().find(|(p, _)| p == name).map(|(_, key)| *key);
        let mut names: Vec<String> = placeholders(expression, '#');
        for name in placeholders(condition, '#') {
            if entry(&name).is_none() && !self.specs.iter().any(|spec| spec.names(&name)) {
                return Err(self.refuse(format!("a condition on #{name}")));
            }
            names.push(name);
        }
        names.sort_unstable();
        names.dedup();
        Ok(names
            .into_iter()
            .map(|name| {
                let named = entry(&name).map_or_else(|| name.clone(), str::to_owned);
                (format!("#{name}"), named)
            })
            .collect())
    }

    /// Each `:name` placeholder's value: the clauses', the entries', the conditions'; refused
    /// unless every placeholder used is bound exactly once and nothing else is.
    fn values(
        &self,
        expression: &str,
        condition: &str,
    ) -> Result<Vec<(String, AttributeValue)>, AppError> {
        let mut values: Vec<(String, AttributeValue)> = (self.clauses.iter())
            .filter_map(|(_, name, value)| Some((format!(":{name}"), value.clone()?)))
            .collect();
        values.extend(
            (self.entries.iter().enumerate())
                .map(|(n, (map, _, value))| (format!(":{map}_{n}"), value.clone())),
        );
        values.extend(self.values.iter().cloned());
        let mut used = placeholders(expression, ':');
        used.extend(placeholders(condition, ':'));
        used.sort_unstable();
        used.dedup();
        let mut bound: Vec<&str> = values.iter().map(|(p, _)| &p[1..]).collect();
        bound.sort_unstable();
        if bound.windows(2).any(|pair| pair[0] == pair[1]) || bound != used {
            return Err(self.refuse(format!("values {bound:?} for placeholders {used:?}")));
        }
        Ok(values)
    }

    /// The UpdateItem as a request of its own, ready to send on `client`: the transaction's
    /// action, its fields handed over.
    pub fn request(self, client: &Client) -> Result<UpdateItemFluentBuilder, AppError> {
        let update = built(self.build()?.build())?;
        Ok(client
            .update_item()
            .table_name(update.table_name)
            .set_key(Some(update.key))
            .set_update_expression(Some(update.update_expression))
            .set_condition_expression(update.condition_expression)
            .set_expression_attribute_names(update.expression_attribute_names)
            .set_expression_attribute_values(update.expression_attribute_values)
            .set_return_values_on_condition_check_failure(
                update.return_values_on_condition_check_failure,
            ))
    }
}

fn key_text<'a>(key: &'a Item, name: &str) -> Option<&'a str> {
    key.get(name)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// The names after each `sigil` in `text` (`#status` → `status`), in order of appearance.
pub(crate) fn placeholders(text: &str, sigil: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(sigil) {
        let after = &rest[at + 1..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if end > 0 {
            out.push(after[..end].to_owned());
        }
        rest = &after[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::codec::primary_key;

    const COUNT: Attr<i64> = Attr::new("placedCount");
    const NAME: Attr<String> = Attr::new("name");
    const SPEC: UpdateSpec = UpdateSpec {
        add: &["placedCount"],
        set: &["name"],
        ..UpdateSpec::of(Entity::Customer)
    };
    const CHECKED: UpdateSpec = UpdateSpec {
        checks: &["email"],
        ..UpdateSpec::of(Entity::Customer)
    };

    fn key() -> Item {
        primary_key("CUSTOMER#c1".to_owned(), "PROFILE")
    }

    fn rendered(update: UpdateBuilder) -> (String, Option<String>, Vec<String>, Vec<String>) {
        let update = update.build().expect("built");
        let mut names: Vec<String> = update
            .expression_attribute_names()
            .into_iter()
            .flatten()
            .map(|(p, n)| format!("{p}={n}"))
            .collect();
        names.sort();
        let mut values: Vec<String> = update
            .expression_attribute_values()
            .into_iter()
            .flatten()
            .map(|(p, _)| p.clone())
            .collect();
        values.sort();
        (
            update.update_expression().to_owned(),
            update.condition_expression().map(str::to_owned),
            names,
            values,
        )
    }

    #[test]
    fn an_update_is_rendered_from_its_spec_with_every_placeholder_bound() {
        let update = SPEC
            .on("t", key())
            .set(&NAME, &"Ana".to_owned())
            .add(&COUNT, &1)
            .condition("attribute_not_exists(#placedCount) OR #placedCount < :max")
            .value(":max", &COUNT, &10)
            .build()
            .expect("declared");
        assert_eq!(
            rendered(update),
            (
                "SET #name = :name ADD #placedCount :placedCount".to_owned(),
                Some("attribute_not_exists(#placedCount) OR #placedCount < :max".to_owned()),
                vec![
                    "#name=name".to_owned(),
                    "#placedCount=placedCount".to_owned()
                ],
                vec![
                    ":max".to_owned(),
                    ":name".to_owned(),
                    ":placedCount".to_owned()
                ],
            )
        );
        assert_eq!(SPEC.attributes(), ["PK", "SK", "name", "placedCount"]);
    }

    #[test]
    fn composed_specs_render_together_and_conditions_are_anded() {
        let update = SPEC
            .on("t", key())
            .and(&CHECKED)
            .set(&NAME, &"Ana".to_owned())
            .condition("#email = :email")
            .value(":email", &NAME, &"a@x".to_owned())
            .condition("attribute_exists(PK)")
            .build()
            .expect("declared");
        let (expression, condition, ..) = rendered(update);
        assert_eq!(expression, "SET #name = :name");
        assert_eq!(
            condition.as_deref(),
            Some("(#email = :email) AND (attribute_exists(PK))")
        );
    }

    #[test]
    fn what_the_spec_does_not_declare_is_refused() {
        let other: Attr<String> = Attr::new("email");
        let refused = |change: Change| format!("{:?}", change.build().expect_err("refused"));
        assert!(refused(SPEC.on("t", key()).set(&other, &"x".to_owned())).contains("Set email"));
        assert!(
            refused(
                SPEC.on("t", key())
                    .add(&COUNT, &1)
                    .condition("#email = :e")
                    .value(":e", &other, &"x".to_owned())
            )
            .contains("#email")
        );
        // A value nothing uses, or a placeholder nothing binds.
        assert!(
            SPEC.on("t", key())
                .add(&COUNT, &1)
                .value(":unused", &COUNT, &1)
                .build()
                .is_err()
        );
        assert!(
            SPEC.on("t", key())
                .add(&COUNT, &1)
                .condition("#placedCount < :max")
                .build()
                .is_err()
        );
        // The key of another entity.
        let order = primary_key("ORDER#o1".to_owned(), "HEADER");
        assert!(SPEC.on("t", order).add(&COUNT, &1).build().is_err());
    }

    #[test]
    fn a_maps_entries_are_named_by_placeholder_and_declared_by_the_map() {
        const HELD: Attr<Item> = Attr::new("held");
        const MAPPED: UpdateSpec = UpdateSpec {
            add: &["held"],
            ..UpdateSpec::of(Entity::Customer)
        };
        let room = Change::entry(&HELD, 1);
        let update = MAPPED
            .on("t", key())
            .add_to_entry(&HELD, "sku-1", 2)
            .add_to_entry(&HELD, "sku 2", -3)
            .condition(format!("attribute_not_exists({room}) OR {room} <= :room_1"))
            .value_named(":room_1".to_owned(), &COUNT, &7)
            .build()
            .expect("declared");
        assert_eq!(
            rendered(update),
            (
                "ADD #held.#held_0 :held_0, #held.#held_1 :held_1".to_owned(),
                Some("attribute_not_exists(#held.#held_1) OR #held.#held_1 <= :room_1".to_owned()),
                vec![
                    "#held=held".to_owned(),
                    "#held_0=sku-1".to_owned(),
                    "#held_1=sku 2".to_owned()
                ],
                vec![
                    ":held_0".to_owned(),
                    ":held_1".to_owned(),
                    ":room_1".to_owned()
                ],
            )
        );
        // A map its spec does not declare.
        assert!(
            SPEC.on("t", key())
                .add_to_entry(&HELD, "sku-1", 1)
                .build()
                .is_err()
        );
    }

    #[test]
    fn placeholders_are_read_as_dynamodb_reads_them() {
        assert_eq!(
            placeholders("#a = :a AND (#b_1 < :max) OR attribute_not_exists(PK)", '#'),
            ["a", "b_1"]
        );
        assert_eq!(
            placeholders("#a = :a, #c = if_not_exists(#c, :zero)", ':'),
            ["a", "zero"]
        );
    }
}
