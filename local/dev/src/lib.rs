//! `make dev`: the HTTP API of template.yaml served on the embedded engine, each route calling
//! the same handler code as its Lambda, through the same API Gateway (payload 2.0) event.

pub mod auth;
pub mod openapi;
pub mod routes;
pub mod server;

use lambda_http::{Body, Request, Response};
use shared::Store;
use shared::http::serve::dispatch;

/// The Cargo binaries (template.yaml's `Metadata.BuildProperties.Binary`) [`invoke`] can run.
pub const BINARIES: [&str; 12] = [
    "get-customer",
    "list-customer-orders",
    "get-order-items",
    "list-orders-by-status",
    "put-customer",
    "place-order",
    "get-order",
    "update-order-status",
    "get-product",
    "list-products",
    "put-product",
    "adjust-stock",
];

/// Calls the handler of the Lambda built from `binary`, as its `main` would.
pub async fn invoke(binary: &str, store: &Store, req: Request) -> Option<Response<Body>> {
    Some(match binary {
        "get-customer" => dispatch(store, req, get_customer::handle).await,
        "list-customer-orders" => dispatch(store, req, list_customer_orders::handle).await,
        "get-order-items" => dispatch(store, req, get_order_items::handle).await,
        "list-orders-by-status" => dispatch(store, req, list_orders_by_status::handle).await,
        "put-customer" => dispatch(store, req, put_customer::handle).await,
        "place-order" => dispatch(store, req, place_order::handle).await,
        "get-order" => dispatch(store, req, get_order::handle).await,
        "update-order-status" => dispatch(store, req, update_order_status::handle).await,
        "get-product" => dispatch(store, req, get_product::handle).await,
        "list-products" => dispatch(store, req, list_products::handle).await,
        "put-product" => dispatch(store, req, put_product::handle).await,
        "adjust-stock" => dispatch(store, req, adjust_stock::handle).await,
        _ => return None,
    })
}

/// Whether [`invoke`] knows the binary.
pub fn knows(binary: &str) -> bool {
    BINARIES.contains(&binary)
}

/// The folder beside the data file (`STORE_DATA_FILE`) where local state other than the
/// table lives: the issuer's key, the stream checkpoints.
pub fn data_dir(data_file: &std::path::Path) -> std::path::PathBuf {
    data_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(
            || std::path::PathBuf::from("."),
            std::path::Path::to_path_buf,
        )
}

/// `STORE_DATA_FILE`, or `.local-data/store.db`.
pub fn data_file() -> std::path::PathBuf {
    std::env::var("STORE_DATA_FILE")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| ".local-data/store.db".to_owned())
        .into()
}
