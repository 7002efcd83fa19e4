//! Lambda entry point of list-categories: its handler over the store.

functions::serve_http_with_store!(functions::list_categories::handle);
