//! Lambda entry point of put-customer: its handler over the store.

functions::serve_http_with_store!(functions::put_customer::handle);
