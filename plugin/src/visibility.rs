//! Whether an entity is drawn.

use bevy_ecs::prelude::Component;

/// Whether a mesh entity is drawn. Immutable (insert a new value to change it), so the render
/// world hears of the change through a hook instead of checking every entity every frame.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[component(immutable, on_insert = crate::render::extract::touch_instance, on_discard = crate::render::extract::touch_instance)]
pub enum Visibility {
    /// Drawn.
    #[default]
    Visible,
    /// Not drawn (and casts no shadow).
    Hidden,
}
