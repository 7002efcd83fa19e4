//! The access patterns, numbered once: the question each answers, the route that answers it and
//! the one DynamoDB request it sends per page. The README's table, `make dev`'s explorer forms
//! and the bench's rows are tested against (or built from) this list, and each pattern's
//! request against its binary's declaration in [`crate::permissions`].

use crate::dynamo::keys::Entity;
use crate::dynamo::query::Index;
use crate::permissions::{IndexPartitions, Sends};

/// One access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessPattern {
    /// Its number, as the README and the explorer show it.
    pub number: u8,
    /// The question it answers, in lower case as a table cell starts.
    pub question: &'static str,
    /// The route that answers it (`shared::http::routes::ROUTES`' key).
    pub route: &'static str,
    /// The one request it sends per page.
    pub request: Sends,
}

const fn pattern(
    number: u8,
    question: &'static str,
    route: &'static str,
    request: Sends,
) -> AccessPattern {
    AccessPattern {
        number,
        question,
        route,
        request,
    }
}

/// Every access pattern, by number.
pub const ACCESS_PATTERNS: &[AccessPattern] = &[
    pattern(
        1,
        "a customer's profile",
        "GET /customers/{customerId}",
        Sends::GetItem(Entity::Customer),
    ),
    pattern(
        2,
        "a customer's orders, newest first",
        "GET /customers/{customerId}/orders",
        Sends::Query(Entity::OrderListing),
    ),
    pattern(
        3,
        "an order's line items",
        "GET /orders/{orderId}/items",
        Sends::Query(Entity::LineItem),
    ),
    pattern(
        4,
        "orders with a status, oldest first",
        "GET /orders",
        Sends::QueryIndex(Index::Gsi1, IndexPartitions::AnyStatus),
    ),
    pattern(
        5,
        "a variant, its price and stock",
        "GET /variants/{sku}",
        Sends::GetItem(Entity::Variant),
    ),
    pattern(
        6,
        "the catalog: published products, each with its lowest price",
        "GET /products",
        Sends::Query(Entity::CatalogEntry),
    ),
    pattern(
        7,
        "an order by ID, with its lines, shipments and returns",
        "GET /orders/{orderId}",
        Sends::Query(Entity::OrderHeader),
    ),
    pattern(
        8,
        "the orders that contain a variant, newest first (staff)",
        "GET /variants/{sku}/orders",
        Sends::QueryIndex(Index::Gsi2, IndexPartitions::AnyProduct),
    ),
    pattern(
        9,
        "a customer's cart",
        "GET /customers/{customerId}/cart",
        Sends::Query(Entity::CartLine),
    ),
    pattern(
        10,
        "refunds in a status, oldest first (staff)",
        "GET /payments/refunds",
        Sends::QueryIndex(Index::Gsi1, IndexPartitions::Refunds),
    ),
    pattern(
        11,
        "returns in a status, oldest first (staff)",
        "GET /returns",
        Sends::QueryIndex(Index::Gsi1, IndexPartitions::Returns),
    ),
    pattern(
        12,
        "a product with its variants and pictures",
        "GET /products/{productId}",
        Sends::QueryIndex(Index::Gsi3, IndexPartitions::Products),
    ),
    pattern(
        13,
        "the category tree",
        "GET /categories",
        Sends::Query(Entity::Category),
    ),
    pattern(
        14,
        "a category's published products, by price or newest",
        "GET /categories/{categoryId}/products",
        Sends::QueryIndex(Index::Gsi3, IndexPartitions::Categories),
    ),
];

/// Pattern `number`.
pub fn find(number: u8) -> Option<&'static AccessPattern> {
    ACCESS_PATTERNS.iter().find(|p| p.number == number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::routes;
    use crate::permissions;

    #[test]
    fn patterns_are_numbered_in_order_and_each_request_is_one_its_binary_declares() {
        for (i, p) in ACCESS_PATTERNS.iter().enumerate() {
            assert_eq!(usize::from(p.number), i + 1, "{p:?}");
            let route = routes::find(p.route).unwrap_or_else(|| panic!("{p:?}: no such route"));
            let declared = permissions::of(route.binary).expect("declared");
            assert!(
                declared.sends.contains(&p.request),
                "{p:?}: {} does not declare {:?}",
                route.binary,
                p.request
            );
        }
    }

    /// The README's access-pattern table: its numbers, questions and endpoints are this list's.
    #[test]
    fn the_readmes_table_is_this_list() {
        let readme = include_str!("../../README.md");
        let rows: Vec<(u8, String, String)> = readme
            .lines()
            .skip_while(|line| !line.starts_with("| # | question | endpoint |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(|row| {
                let cells: Vec<&str> = row.split('|').map(str::trim).collect();
                let endpoint = cells[3].trim_matches('`');
                let endpoint = endpoint.split('?').next().unwrap_or(endpoint);
                (
                    cells[1].parse().expect("a number"),
                    cells[2].to_owned(),
                    endpoint.to_owned(),
                )
            })
            .collect();
        let expected: Vec<(u8, String, String)> = ACCESS_PATTERNS
            .iter()
            .map(|p| (p.number, p.question.to_owned(), p.route.to_owned()))
            .collect();
        assert_eq!(rows, expected);
    }
}
