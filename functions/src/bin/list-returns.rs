//! Lambda entry point of list-returns: its handler over the store.

functions::serve_http_with_store!(functions::list_returns::handle);
