//! Lambda entry point of cancel-lines: its handler over the store.

functions::serve_http_with_store!(functions::cancel_lines::handle);
