//! Pass authors extract their own data the way Bevy's renderer lets them: bevy_extract's
//! `ExtractComponentPlugin::<C, RenderApp>` and `ExtractResourcePlugin::<R, RenderApp>`, and
//! plain `Extract<…>` systems in `ExtractSchedule`, added from a plugin's `build`, inline and
//! pipelined.

use std::sync::{Arc, Mutex};

use f3d::bevy_extract::extract_component::{ExtractComponent, ExtractComponentPlugin};
use f3d::bevy_extract::extract_resource::{ExtractResource, ExtractResourcePlugin};
use f3d::bevy_extract::sync_component::SyncComponent;
use f3d::prelude::*;

/// A per-entity value a pass would draw with.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Glow(f32);

impl SyncComponent<RenderApp> for Glow {
    type Target = Glow;
}

impl ExtractComponent<RenderApp> for Glow {
    type QueryData = &'static Glow;
    type QueryFilter = ();
    type Out = Glow;
    fn extract_component(glow: &Glow) -> Option<Glow> {
        Some(*glow)
    }
}

/// A setting a pass would read.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
struct Strength(f32);

impl ExtractResource<RenderApp> for Strength {
    type Source = Strength;
    fn extract_resource(source: &Strength) -> Self {
        *source
    }
}

/// One frame as the render world saw it: the glows (×10, sorted), the strength, and the
/// number of `Transform`s an `Extract<Query>` system counted.
type Observed = (Vec<u32>, Option<f32>, usize);

/// Every frame's [`Observed`].
#[derive(Resource, Clone, Default)]
struct Seen(Arc<Mutex<Vec<Observed>>>);

#[derive(Resource, Default)]
struct Counted(usize);

struct PassAuthorPlugin(Seen);

impl Plugin for PassAuthorPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            ExtractComponentPlugin::<Glow, RenderApp>::default(),
            ExtractResourcePlugin::<Strength, RenderApp>::default(),
        ));
        let seen = self.0.clone();
        app.sub_app_mut(RenderApp)
            .insert_resource(seen)
            .init_resource::<Counted>()
            .add_systems(
                ExtractSchedule,
                |transforms: Extract<Query<&Transform>>, mut counted: ResMut<Counted>| {
                    counted.0 = transforms.iter().count();
                },
            )
            .add_systems(
                Render,
                (|glows: Query<&Glow>,
                  strength: Option<Res<Strength>>,
                  counted: Res<Counted>,
                  seen: Res<Seen>| {
                    let mut g: Vec<u32> = glows.iter().map(|g| (g.0 * 10.0) as u32).collect();
                    g.sort_unstable();
                    seen.0.lock().unwrap().push((g, strength.map(|s| s.0), counted.0));
                })
                .in_set(RenderSystems::Prepare),
            );
    }
}

fn run(pipelined: bool) -> Vec<Observed> {
    let seen = Seen::default();
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(f3d::f3d_hal::BackendId::SOFT),
        size: (16, 16),
        pipelined,
        ..Default::default()
    })
    .add_plugins(PassAuthorPlugin(seen.clone()))
    .insert_resource(Strength(0.5));
    app.finish();
    app.cleanup();
    let a = app.world_mut().spawn((Glow(1.0), Transform::default())).id();
    app.world_mut().spawn((Glow(2.0), Transform::default()));
    app.world_mut().spawn(Transform::default());
    app.update();
    app.update();
    // Changes reach the render world: a glow removed, the strength edited.
    app.world_mut().entity_mut(a).remove::<Glow>();
    app.world_mut().resource_mut::<Strength>().0 = 0.75;
    for _ in 0..3 {
        app.update();
    }
    drop(app);
    seen.0.lock().unwrap().clone()
}

fn check(frames: &[Observed]) {
    assert!(frames.len() >= 4, "{frames:?}");
    assert_eq!(frames[0], (vec![10, 20], Some(0.5), 3), "the first frame: {frames:?}");
    assert_eq!(frames.last().unwrap(), &(vec![20], Some(0.75), 3), "after the edits: {frames:?}");
}

#[test]
fn extract_plugins_and_extract_systems_work_inline() {
    check(&run(false));
}

#[test]
fn extract_plugins_and_extract_systems_work_pipelined() {
    check(&run(true));
}
