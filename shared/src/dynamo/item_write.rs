//! Puts and deletes of whole items, built from their specs as updates are ([`super::update`]):
//! the one way the store writes a PutItem or a DeleteItem. A put writes only the attributes its
//! [`PutSpec`] lists, a delete's key is of its [`DeleteSpec`]'s entity, and a condition names
//! only what the spec declares (a put's attributes, a delete's `checks`), every placeholder
//! bound once. The conditions the store repeats are written here once: [`Putting::only_new`],
//! [`Putting::only_existing`], and the TTL takeover, [`Putting::new_or_expired`].

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::types::builders::{DeleteBuilder, PutBuilder};
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, ReturnValuesOnConditionCheckFailure};

use crate::AppError;
use crate::dynamo::codec::{Attr, Item, Stored};
use crate::dynamo::keys::{self, Entity};
use crate::dynamo::store::built;
use crate::dynamo::update::{DeleteSpec, PutSpec, placeholders};

/// A write's conditions and their values, before they are checked against its spec.
#[derive(Debug, Clone, Default)]
struct Guard {
    conditions: Vec<String>,
    values: Vec<(&'static str, AttributeValue)>,
    return_old_on_failure: bool,
}

/// A guard as the request carries it: the condition, its names and its values.
struct Rendered {
    condition: Option<String>,
    names: Vec<(String, String)>,
    values: Vec<(String, AttributeValue)>,
    return_old_on_failure: Option<ReturnValuesOnConditionCheckFailure>,
}

impl Guard {
    /// The guard rendered: refused (`Err(why)`) when a condition names an attribute `declares`
    /// refuses, or a placeholder is unbound, bound twice, or bound and unused.
    fn render(self, declares: impl Fn(&str) -> bool) -> Result<Rendered, String> {
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
        let text = condition.as_deref().unwrap_or_default();
        let mut names = placeholders(text, '#');
        names.sort_unstable();
        names.dedup();
        if let Some(name) = names.iter().find(|name| !declares(name)) {
            return Err(format!("a condition on #{name}"));
        }
        let mut used = placeholders(text, ':');
        used.sort_unstable();
        used.dedup();
        let mut bound: Vec<&str> = self.values.iter().map(|(p, _)| &p[1..]).collect();
        bound.sort_unstable();
        if bound.windows(2).any(|pair| pair[0] == pair[1]) || bound != used {
            return Err(format!("values {bound:?} for placeholders {used:?}"));
        }
        Ok(Rendered {
            condition,
            names: names
                .into_iter()
                .map(|name| (format!("#{name}"), name))
                .collect(),
            values: self
                .values
                .into_iter()
                .map(|(p, v)| (p.to_owned(), v))
                .collect(),
            return_old_on_failure: self
                .return_old_on_failure
                .then_some(ReturnValuesOnConditionCheckFailure::AllOld),
        })
    }
}

/// Whether `item`'s keys are those of `entity`.
fn keyed_as(item: &Item, entity: Entity) -> bool {
    let text = |name| item.get(name).and_then(|v| v.as_s().ok());
    text(keys::PK)
        .zip(text(keys::SK))
        .and_then(|(pk, sk)| Entity::of(pk, sk))
        == Some(entity)
}

impl PutSpec {
    /// A PutItem of this kind of `item` in `table`, replacing whatever is there until a
    /// condition says otherwise.
    pub fn put(&'static self, table: &str, item: Item) -> Putting {
        Putting {
            spec: self,
            table: table.to_owned(),
            item,
            guard: Guard::default(),
        }
    }
}

impl DeleteSpec {
    /// A DeleteItem of this kind of the item at `key` in `table`.
    pub fn delete(&'static self, table: &str, key: Item) -> Deleting {
        Deleting {
            spec: self,
            table: table.to_owned(),
            key,
            guard: Guard::default(),
        }
    }
}

/// A PutItem being built from its spec.
#[derive(Debug, Clone)]
pub struct Putting {
    spec: &'static PutSpec,
    table: String,
    item: Item,
    guard: Guard,
}

impl Putting {
    /// Only where no item is yet.
    pub fn only_new(self) -> Self {
        self.condition("attribute_not_exists(PK)")
    }

    /// Only where the item still is (it may have been taken or removed since it was read).
    pub fn only_existing(self) -> Self {
        self.condition("attribute_exists(PK)")
    }

    /// Only where no item is yet, or where the one there has expired by `now` (epoch seconds):
    /// TTL deletes an expired item only eventually, so its key may be taken over before.
    pub fn new_or_expired(self, expires: &'static Attr<u64>, now: u64) -> Self {
        let condition = format!("attribute_not_exists(PK) OR #{} < :now", expires.name);
        self.condition(condition).value(":now", expires, &now)
    }

    /// [`Putting::new_or_expired`], or where `other` holds of the item there (a claim whose
    /// holder's time is up, say).
    pub fn new_expired_or(self, expires: &'static Attr<u64>, now: u64, other: &str) -> Self {
        let condition = format!(
            "attribute_not_exists(PK) OR #{} < :now OR ({other})",
            expires.name
        );
        self.condition(condition).value(":now", expires, &now)
    }

    /// A condition, ANDed with the others: `#name` placeholders name attributes the spec
    /// writes, `:name` ones values bound with [`Putting::value`].
    pub fn condition(mut self, condition: impl Into<String>) -> Self {
        self.guard.conditions.push(condition.into());
        self
    }

    /// The value of a condition's placeholder, typed as `attr` stores it.
    pub fn value<T: Stored>(
        mut self,
        placeholder: &'static str,
        attr: &Attr<T>,
        value: &T,
    ) -> Self {
        self.guard.values.push((placeholder, attr.value(value)));
        self
    }

    /// The item as it stands comes back when a condition fails.
    pub fn returning_old_on_failure(mut self) -> Self {
        self.guard.return_old_on_failure = true;
        self
    }

    fn checked(self) -> Result<(String, Item, Rendered), AppError> {
        let spec = self.spec;
        let refuse = |what: String| {
            AppError::internal(format!(
                "a put of {:?} that its spec does not declare: {what}",
                spec.entity
            ))
        };
        if !keyed_as(&self.item, spec.entity) {
            return Err(refuse("the item's key".to_owned()));
        }
        if let Some(name) = self
            .item
            .keys()
            .find(|name| !spec.attributes.contains(&name.as_str()))
        {
            return Err(refuse(format!("the attribute {name}")));
        }
        let rendered = self
            .guard
            .render(|name| spec.attributes.contains(&name))
            .map_err(refuse)?;
        Ok((self.table, self.item, rendered))
    }

    /// The PutItem as an action of a transaction; refused when it writes or names what its
    /// spec does not declare.
    pub fn build(self) -> Result<PutBuilder, AppError> {
        let (table, item, rendered) = self.checked()?;
        let mut put = Put::builder()
            .table_name(table)
            .set_item(Some(item))
            .set_condition_expression(rendered.condition)
            .set_return_values_on_condition_check_failure(rendered.return_old_on_failure);
        for (placeholder, name) in rendered.names {
            put = put.expression_attribute_names(placeholder, name);
        }
        for (placeholder, value) in rendered.values {
            put = put.expression_attribute_values(placeholder, value);
        }
        Ok(put)
    }

    /// The PutItem as a request of its own, ready to send on `client`.
    pub fn request(self, client: &Client) -> Result<PutItemFluentBuilder, AppError> {
        let put = built(self.build()?.build())?;
        Ok(client
            .put_item()
            .table_name(put.table_name)
            .set_item(Some(put.item))
            .set_condition_expression(put.condition_expression)
            .set_expression_attribute_names(put.expression_attribute_names)
            .set_expression_attribute_values(put.expression_attribute_values)
            .set_return_values_on_condition_check_failure(
                put.return_values_on_condition_check_failure,
            ))
    }
}

/// A DeleteItem being built from its spec.
#[derive(Debug, Clone)]
pub struct Deleting {
    spec: &'static DeleteSpec,
    table: String,
    key: Item,
    guard: Guard,
}

impl Deleting {
    /// A condition, ANDed with the others: `#name` placeholders name the spec's `checks`.
    pub fn condition(mut self, condition: impl Into<String>) -> Self {
        self.guard.conditions.push(condition.into());
        self
    }

    /// The value of a condition's placeholder, typed as `attr` stores it.
    pub fn value<T: Stored>(
        mut self,
        placeholder: &'static str,
        attr: &Attr<T>,
        value: &T,
    ) -> Self {
        self.guard.values.push((placeholder, attr.value(value)));
        self
    }

    fn checked(self) -> Result<(String, Item, Rendered), AppError> {
        let spec = self.spec;
        let refuse = |what: String| {
            AppError::internal(format!(
                "a delete of {:?} that its spec does not declare: {what}",
                spec.entity
            ))
        };
        if self.key.len() != 2 || !keyed_as(&self.key, spec.entity) {
            return Err(refuse(format!("the key {:?}", self.key)));
        }
        let rendered = self
            .guard
            .render(|name| spec.checks.contains(&name))
            .map_err(refuse)?;
        Ok((self.table, self.key, rendered))
    }

    /// The DeleteItem as an action of a transaction; refused when its key is of another
    /// entity or a condition reads what its spec does not check.
    pub fn build(self) -> Result<DeleteBuilder, AppError> {
        let (table, key, rendered) = self.checked()?;
        let mut delete = Delete::builder()
            .table_name(table)
            .set_key(Some(key))
            .set_condition_expression(rendered.condition);
        for (placeholder, name) in rendered.names {
            delete = delete.expression_attribute_names(placeholder, name);
        }
        for (placeholder, value) in rendered.values {
            delete = delete.expression_attribute_values(placeholder, value);
        }
        Ok(delete)
    }

    /// The DeleteItem as a request of its own, ready to send on `client`.
    pub fn request(self, client: &Client) -> Result<DeleteItemFluentBuilder, AppError> {
        let delete = built(self.build()?.build())?;
        Ok(client
            .delete_item()
            .table_name(delete.table_name)
            .set_key(Some(delete.key))
            .set_condition_expression(delete.condition_expression)
            .set_expression_attribute_names(delete.expression_attribute_names)
            .set_expression_attribute_values(delete.expression_attribute_values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::codec::primary_key;
    use crate::dynamo::entities::{cart_line, idempotency, payment_order};

    fn record() -> Item {
        let mut item = primary_key("IDEMPOTENCY#k1".to_owned(), idempotency::SORT_KEY);
        item.insert("expiresAt".to_owned(), AttributeValue::N("10".to_owned()));
        item
    }

    #[test]
    fn the_ttl_takeover_is_rendered_once_from_the_expiry_attribute() {
        let put = idempotency::PUT
            .put("AppTable", record())
            .new_or_expired(&idempotency::EXPIRES_AT, 1_800_000_000)
            .build()
            .expect("declared")
            .build()
            .expect("complete");
        assert_eq!(
            put.condition_expression(),
            Some("attribute_not_exists(PK) OR #expiresAt < :now")
        );
        let names = put.expression_attribute_names().expect("names");
        assert_eq!(
            names.get("#expiresAt").map(String::as_str),
            Some("expiresAt")
        );
        let values = put.expression_attribute_values().expect("values");
        assert_eq!(
            values.get(":now"),
            Some(&AttributeValue::N("1800000000".into()))
        );
    }

    #[test]
    fn a_put_of_an_undeclared_attribute_or_another_entity_is_refused() {
        let mut item = record();
        item.insert("phone".to_owned(), AttributeValue::S("+1".to_owned()));
        let refused = idempotency::PUT.put("AppTable", item).build();
        assert!(refused.is_err(), "an attribute the spec does not list");
        let other = primary_key("PAYMENT#pi_1".to_owned(), "ORDER");
        assert!(idempotency::PUT.put("AppTable", other).build().is_err());
        let unbound = idempotency::PUT
            .put("AppTable", record())
            .condition("#expiresAt < :later")
            .build();
        assert!(unbound.is_err(), "a placeholder left unbound");
    }

    #[test]
    fn a_put_condition_names_only_what_the_spec_writes() {
        let item = payment_order::to_item(
            &crate::domain::ids::PaymentId::parse("pi_1").expect("id"),
            &crate::domain::ids::OrderId::parse("o1").expect("id"),
        );
        let refused = payment_order::PUT
            .put("AppTable", item.clone())
            .condition("attribute_not_exists(#status)")
            .build();
        assert!(refused.is_err());
        assert!(
            payment_order::PUT
                .put("AppTable", item)
                .only_new()
                .build()
                .is_ok()
        );
    }

    #[test]
    fn a_delete_reads_only_its_checks_and_keys_only_its_entity() {
        let key = primary_key("CUSTOMER#c1".to_owned(), "CART#sku-1");
        let taken = cart_line::TAKE
            .delete("AppTable", key.clone())
            .condition("#quantity = :quantity")
            .value(":quantity", &cart_line::QUANTITY, &2)
            .build();
        assert!(taken.is_ok(), "{taken:?}");
        let unchecked = cart_line::REMOVE
            .delete("AppTable", key)
            .condition("#quantity = :quantity")
            .value(":quantity", &cart_line::QUANTITY, &2)
            .build();
        assert!(unchecked.is_err(), "REMOVE checks nothing");
        let profile = primary_key("CUSTOMER#c1".to_owned(), "PROFILE");
        assert!(
            cart_line::REMOVE
                .delete("AppTable", profile)
                .build()
                .is_err()
        );
    }
}
