//! The functions that price a cart and keep what it is priced by: ways to ship, tax rates,
//! promotions, and the quote. `table.rs` lists them with every other function.

use super::Sends::{BatchGetItem, DeleteItem, GetItem, PutItem, Query};
use super::{Function, function};
use crate::dynamo::entities::{promotion, promotion_code, shipping_option, tax_rate};
use crate::dynamo::keys::Entity;

/// `put-shipping-option`.
pub(super) const PUT_SHIPPING_OPTION: Function = function(
    "put-shipping-option",
    "Creates or replaces a way to ship: where to, its rate (staff)",
    &[
        Query(Entity::ShippingOption),
        PutItem(&shipping_option::PUT),
    ],
);

/// `list-shipping-options`.
pub(super) const LIST_SHIPPING_OPTIONS: Function = function(
    "list-shipping-options",
    "The ways to ship to an address (one Query)",
    &[Query(Entity::ShippingOption)],
);

/// `put-tax-rate`.
pub(super) const PUT_TAX_RATE: Function = function(
    "put-tax-rate",
    "Creates or replaces a country's tax rate (staff)",
    &[PutItem(&tax_rate::PUT)],
);

/// `get-tax-rate`.
pub(super) const GET_TAX_RATE: Function = function(
    "get-tax-rate",
    "A country's tax rate (GetItem, staff)",
    &[GetItem(Entity::TaxRate)],
);

/// `put-promotion`.
pub(super) const PUT_PROMOTION: Function = function(
    "put-promotion",
    "Creates or replaces a promotion, its code claimed in the same transaction (staff)",
    &[
        Query(Entity::Promotion),
        PutItem(&promotion::PUT),
        PutItem(&promotion_code::CLAIM),
        DeleteItem(&promotion_code::RELEASE),
    ],
);

/// `quote-cart`.
pub(super) const QUOTE_CART: Function = function(
    "quote-cart",
    "What a customer's cart costs: discounts, shipping and tax (two Queries, one BatchGetItem; the products' in a second where a promotion names categories)",
    &[
        Query(Entity::CartLine),
        Query(Entity::Promotion),
        GetItem(Entity::Customer),
        BatchGetItem(Entity::Variant),
        BatchGetItem(Entity::ShippingOption),
        BatchGetItem(Entity::TaxRate),
        BatchGetItem(Entity::Product),
        BatchGetItem(Entity::PromotionUses),
    ],
);
