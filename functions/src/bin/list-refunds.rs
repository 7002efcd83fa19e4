//! Lambda entry point of list-refunds: its handler over the store.

functions::serve_http_with_store!(functions::list_refunds::handle);
