//! Access pattern 8: the orders that contain a product, newest first, through GSI2 — the line
//! items' inverted view (`PRODUCT#<sku>` / `<placedAt>#<orderId>`), projecting what a line says
//! (`customerId`, `quantity`, `price`). ONE Query per page.

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::Sku;
use crate::domain::order::ProductOrderLine;
use crate::domain::page::{Page, PageRequest, PlacedWindow};
use crate::dynamo::codec::{self, Item};
use crate::dynamo::cursor::{self, query_limit, text};
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{GSI2, GSI2PK, GSI2SK, PK, SK};
use crate::dynamo::store::Store;

impl Store {
    /// Access pattern 8: `sku`'s order lines placed in `window`, newest first.
    pub async fn list_product_orders(
        &self,
        sku: &Sku,
        window: PlacedWindow,
        page: &PageRequest,
        caller: &Caller,
    ) -> Result<Page<ProductOrderLine>, AppError> {
        let gsi2pk = line_item::gsi2pk(sku);
        let (lo, hi) = line_item::gsi2sk_range(window.from, window.to);
        let start = cursor::open(caller, page.cursor.as_deref(), |key| {
            is_line_of(key, sku)
                && text(key, GSI2SK).is_some_and(|at| (lo.as_str()..=hi.as_str()).contains(&at))
        })?;
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(GSI2)
            .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
            .expression_attribute_names("#pk", GSI2PK)
            .expression_attribute_names("#sk", GSI2SK)
            .expression_attribute_values(":pk", codec::PK.value(&gsi2pk))
            .expression_attribute_values(":lo", codec::SK.value(&lo))
            .expression_attribute_values(":hi", codec::SK.value(&hi))
            // Newest first: the highest GSI2SK (the latest placedAt) first.
            .scan_index_forward(false)
            .limit(query_limit(page.limit + 1))
            .set_exclusive_start_key(start)
            .send()
            .await?;
        cursor::page(
            caller,
            out.items.unwrap_or_default(),
            page.limit,
            &[GSI2PK, GSI2SK, PK, SK],
            || out.last_evaluated_key,
            line_item::product_order_from_item,
        )
    }
}

/// Whether `key` is, byte for byte, the GSI2 position the store itself writes for a line of
/// `sku`: a cursor carrying anything else (another product, another order's keys, a timestamp
/// spelled another way) is refused before it reaches DynamoDB.
fn is_line_of(key: &Item, sku: &Sku) -> bool {
    let (Some(gsi2pk), Some(gsi2sk), Some(pk), Some(sk)) = (
        text(key, GSI2PK),
        text(key, GSI2SK),
        text(key, PK),
        text(key, SK),
    ) else {
        return false;
    };
    let Ok((placed_at, order)) = line_item::parse_gsi2sk(gsi2sk) else {
        return false;
    };
    key.len() == 4
        && gsi2pk == line_item::gsi2pk(sku)
        && gsi2sk == line_item::gsi2sk(placed_at, &order)
        && pk == line_item::pk(&order)
        && sk == line_item::sk(sku)
}
