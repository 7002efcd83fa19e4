//! Access pattern 8: the orders that contain a product, newest first, through GSI2 — the line
//! items' inverted view (`PRODUCT#<sku>` / `<placedAt>#<orderId>`), projecting what a line says
//! (`customerId`, `quantity`, `price`). ONE Query per page.

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::Sku;
use crate::domain::order::ProductOrderLine;
use crate::domain::page::{Page, PageRequest, PlacedWindow};
use crate::dynamo::codec::Item;
use crate::dynamo::cursor::text;
use crate::dynamo::entities::line_item;
use crate::dynamo::keys::{GSI2PK, GSI2SK, PK, SK};
use crate::dynamo::query::{Index, KeyQuery};
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
        let query = KeyQuery::on(Index::Gsi2, line_item::gsi2pk(sku))
            .between(line_item::gsi2sk_range(window.from, window.to))
            .newest_first();
        let start = query.open(caller, page.cursor.as_deref(), |key| is_line_of(key, sku))?;
        query
            .read_page(
                self,
                caller,
                page,
                start,
                line_item::product_order_from_item,
            )
            .await
    }
}

/// Whether `key` (a GSI2 position, as [`KeyQuery::holds`] checked) is, byte for byte, the
/// GSI2 position the store itself writes for a line of `sku`: a cursor carrying anything else (another product, another order's keys, a timestamp
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
    gsi2pk == line_item::gsi2pk(sku)
        && gsi2sk == line_item::gsi2sk(placed_at, &order)
        && pk == line_item::pk(&order)
        && sk == line_item::sk(sku)
}
