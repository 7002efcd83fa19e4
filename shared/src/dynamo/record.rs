//! An entity's stored fields declared once, as a table in its entity's file: each field of the
//! domain type beside the attribute that stores it, its DynamoDB type (the field's `Stored`
//! type), how a reader treats its absence, and whether the source design's boto3 code writes
//! it. [`record!`](crate::dynamo::record::record) generates from the table the attributes'
//! [`Attr`](crate::dynamo::codec::Attr) constants, the codec that writes the fields into an
//! item and reads them back, the update that replaces them, and the name lists an
//! [`UpdateSpec`](crate::dynamo::update::UpdateSpec) or a projection takes. Generated, not
//! interpreted: the code is what a hand codec would be (one `put` or `take` per field, no
//! serde_dynamo), so it costs what the hand codecs measured (`codec`'s module comment).
//!
//! A line with the attribute's name declares it; a line without (`status: OrderStatus = STATUS,
//! required, store;`) stores the field in an attribute another entity's file declares, for
//! items written side by side in one transaction (an order's header and listing).
//!
//! `beside` names the domain type's fields the item's keys give (the caller reads them);
//! `without`, those the record never holds (`None` when read from it: a listing holds no
//! payment, its order's header does).
//!
//! A field's absence, read:
//! - `required`: the item must have it (a source-design attribute, say);
//! - `default`: absent reads as the type's default (a count the stream keeps, 0 until it does);
//! - `optional`: the field is an `Option`, absent reads as `None`; the update that replaces the
//!   record REMOVEs it when it is `None`;
//! - `empty`: the field is a collection, absent reads as empty; an empty one is not written, and
//!   the update that replaces the record REMOVEs it (what arrived of a return, before it did).
//!
//! ```
//! use shared::dynamo::codec::Item;
//! # #[derive(Debug, PartialEq)]
//! # pub struct Pet { pub id: String, pub name: String, pub legs: u64, pub nickname: Option<String> }
//! shared::dynamo::record::record! {
//!     /// What an item stores of a pet.
//!     pub PetRecord stores Pet beside (id: String) {
//!         /// Its name.
//!         name: String = NAME "name", required, source;
//!         /// How many legs, 0 until counted.
//!         legs: u64 = LEGS "legs", default, store;
//!         /// What it answers to.
//!         nickname: String = NICKNAME "nickname", optional, store;
//!     }
//! }
//! let pet = Pet { id: "p1".into(), name: "Rex".into(), legs: 4, nickname: None };
//! let mut item = Item::new();
//! PetRecord::write(&mut item, &pet);
//! assert_eq!(item.len(), 2, "an absent nickname is not written");
//! assert_eq!(PetRecord::read(&mut item, "p1".into()).unwrap(), pet);
//! assert_eq!(PetRecord::NAMES, ["name", "legs", "nickname"]);
//! assert_eq!(PetRecord::OPTIONAL, ["nickname"]);
//! assert!(PetRecord::ATTRIBUTES[0].source && !PetRecord::ATTRIBUTES[1].source);
//! ```

/// How a reader treats an attribute's absence (the module's documentation says each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// The item must have it.
    Required,
    /// Absent reads as the type's default.
    Default,
    /// Absent reads as `None`.
    Optional,
    /// Absent reads as empty, and an empty value is not written.
    Empty,
}

/// One stored attribute of a record, as its table declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute's name in the item.
    pub name: &'static str,
    /// Its DynamoDB form, as a reader is told it: "a string", "a decimal number".
    pub expected: &'static str,
    /// How a reader treats its absence.
    pub absent: Absent,
    /// The source design's boto3 code writes it (what an item written by that code holds).
    pub source: bool,
}

/// Declares a record: see the module's documentation.
#[macro_export]
macro_rules! record {
    (
        $(#[$meta:meta])*
        $vis:vis $record:ident stores $domain:ident beside ($($key:ident : $key_ty:ty),* $(,)?)
        $(without ($($none:ident),* $(,)?))? {
            $(
                $(#[$field_meta:meta])*
                $field:ident : $ty:ty = $attr:ident $($name:literal)?, $absent:ident, $origin:ident;
            )*
        }
    ) => {
        $($crate::record!(@declare [$(#[$field_meta])*] $vis $attr $ty [$($name)?]);)*

        $(#[$meta])*
        #[derive(Debug, Clone, Copy)]
        $vis struct $record;

        impl $record {
            /// Every attribute the record stores, in its table's order.
            pub const NAMES: &'static [&'static str] = &[$($attr.name),*];
            /// Those a reader may find absent and the replacing update removes (`optional`,
            /// `empty`).
            pub const OPTIONAL: &'static [&'static str] =
                $crate::record!(@optional [] $($attr $absent)*);
            /// The table itself.
            pub const ATTRIBUTES: &'static [$crate::dynamo::record::Attribute] = &[$(
                $crate::dynamo::record::Attribute {
                    name: $attr.name,
                    expected: <$ty as $crate::dynamo::codec::Stored>::EXPECTED,
                    absent: $crate::record!(@absent $absent),
                    source: $crate::record!(@source $origin),
                }
            ),*];

            /// Writes the record's fields of `value` into `item` (an absent optional one not at
            /// all).
            pub fn write(item: &mut $crate::dynamo::codec::Item, value: &$domain) {
                $($crate::record!(@put $absent, $attr, item, value.$field);)*
            }

            /// The domain value `item` holds, beside the fields its key gives; the record's
            /// attributes are taken out of `item`.
            pub fn read(
                item: &mut $crate::dynamo::codec::Item,
                $($key: $key_ty),*
            ) -> Result<$domain, $crate::dynamo::codec::BadItem> {
                Ok($domain {
                    $($key,)*
                    $($($none: None,)*)?
                    $($field: $crate::record!(@take $absent, $attr, item),)*
                })
            }

            /// `change` replacing every field of the record with `value`'s: SET, or REMOVE for
            /// an absent optional one. Its spec declares [`Self::NAMES`] under `set` and
            /// [`Self::OPTIONAL`] under `remove`.
            pub fn replace(
                change: $crate::dynamo::update::Change,
                value: &$domain,
            ) -> $crate::dynamo::update::Change {
                $(let change = $crate::record!(@set $absent, $attr, change, value.$field);)*
                change
            }
        }
    };

    // A field with a name declares its attribute; one without names an attribute another
    // entity's file declares (the same item shape written twice in one transaction).
    (@declare [$($meta:tt)*] $vis:vis $attr:ident $ty:ty [$name:literal]) => {
        $($meta)*
        $vis const $attr: $crate::dynamo::codec::Attr<$ty> = $crate::dynamo::codec::Attr::new($name);
    };
    (@declare [$($meta:tt)*] $vis:vis $attr:ident $ty:ty []) => {};

    (@source source) => { true };
    (@source store) => { false };

    (@absent required) => { $crate::dynamo::record::Absent::Required };
    (@absent default) => { $crate::dynamo::record::Absent::Default };
    (@absent optional) => { $crate::dynamo::record::Absent::Optional };
    (@absent empty) => { $crate::dynamo::record::Absent::Empty };

    (@optional [$($acc:expr),*]) => { &[$($acc),*] };
    (@optional [$($acc:expr),*] $attr:ident optional $($rest:tt)*) => {
        $crate::record!(@optional [$($acc,)* $attr.name] $($rest)*)
    };
    (@optional [$($acc:expr),*] $attr:ident empty $($rest:tt)*) => {
        $crate::record!(@optional [$($acc,)* $attr.name] $($rest)*)
    };
    (@optional [$($acc:expr),*] $attr:ident $other:ident $($rest:tt)*) => {
        $crate::record!(@optional [$($acc),*] $($rest)*)
    };

    (@put optional, $attr:ident, $item:ident, $value:expr) => {
        $attr.put_optional($item, $value.as_ref())
    };
    (@put empty, $attr:ident, $item:ident, $value:expr) => {
        if !$value.is_empty() {
            $attr.put($item, &$value)
        }
    };
    (@put $absent:ident, $attr:ident, $item:ident, $value:expr) => {
        $attr.put($item, &$value)
    };

    (@take required, $attr:ident, $item:ident) => { $attr.take($item)? };
    (@take default, $attr:ident, $item:ident) => { $attr.take_optional($item)?.unwrap_or_default() };
    (@take empty, $attr:ident, $item:ident) => { $attr.take_optional($item)?.unwrap_or_default() };
    (@take optional, $attr:ident, $item:ident) => { $attr.take_optional($item)? };

    (@set optional, $attr:ident, $change:ident, $value:expr) => {
        match &$value {
            Some(value) => $change.set(&$attr, value),
            None => $change.remove(&$attr),
        }
    };
    (@set empty, $attr:ident, $change:ident, $value:expr) => {
        match $value.is_empty() {
            false => $change.set(&$attr, &$value),
            true => $change.remove(&$attr),
        }
    };
    (@set $absent:ident, $attr:ident, $change:ident, $value:expr) => {
        $change.set(&$attr, &$value)
    };
}

pub use crate::record;
