//! Lambda entry point of refund-order: its handler over the store.

functions::serve_http_with_store!(functions::refund_order::handle);
