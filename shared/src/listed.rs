//! Enumerations that cannot be listed incompletely: [`listed!`](crate::listed) defines an enum
//! and its `ALL` from one list of variants, so a variant added to the enum is in `ALL` (and in
//! whatever is derived from it: parsing, the docs' tables, the dashboard's test) by
//! construction.

/// Defines a field-less enum and `ALL`, every variant in the order declared.
///
/// ```
/// shared::listed! {
///     /// A colour.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Colour {
///         /// Red.
///         Red,
///         /// Green.
///         Green,
///     }
/// }
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::Green]);
/// ```
#[macro_export]
macro_rules! listed {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $name {
            /// Every variant, in the order the enum declares them (derived: none can be left
            /// out).
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];
        }
    };
}
