//! `store-query`: which statements it sends (`statement.rs`), the store's access patterns as
//! PartiQL against what the API reads (`patterns.rs`), and the command itself (`command.rs`).

mod command;
mod patterns;
mod statement;
