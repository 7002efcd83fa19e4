//! Lambda entry point of put-promotion: its handler over the store.

functions::serve_http_with_store!(functions::put_promotion::handle);
