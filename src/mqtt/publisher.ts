import {
  PRIVATE_ENTITIES,
  attributesTopic,
  availabilityTopic,
  discoveryConfig,
  discoveryTopic,
  stateTopic,
  type Entity,
  type Naming,
} from './entities.js';

/** Where messages go while a broker connection is up; every message is retained. */
export interface Outbox {
  publish(topic: string, payload: string): void;
}

export interface Update {
  entity: Entity;
  state: string;
  attributes?: string;
}

/**
 * What the broker should hold: every entity's discovery config, state and attributes, kept
 * whether or not a connection is up. A change goes out at once when connected; on every
 * (re)connect and whenever Home Assistant announces itself, everything goes out again, so a
 * broker that lost its retained messages (a restart) or a Home Assistant that restarted sees
 * all of it.
 */
export class Publisher {
  private readonly configs = new Map<string, string>();
  private readonly states = new Map<string, string>();
  /** Private entities known only at run time (one per watched wallet), emptied like PRIVATE_ENTITIES. */
  private readonly withheld = new Map<string, Entity>();
  /** Entities made at run time and published, by id: what the next runTime() may take away. */
  private readonly made = new Map<string, Entity>();
  private outbox: Outbox | null = null;

  constructor(
    private readonly naming: Naming,
    private readonly opts: { private: boolean },
  ) {}

  /** Declares entities whose state is not known yet: their configs go out with everything else. */
  declare(entities: Entity[]): void {
    for (const e of entities)
      if (this.allowed(e)) this.put(this.configs, discoveryTopic(this.naming, e), this.configOf(e));
  }

  update(updates: Update[]): void {
    for (const u of updates) {
      if (!this.allowed(u.entity)) continue;
      this.declare([u.entity]);
      this.put(this.states, stateTopic(this.naming, u.entity), u.state);
      if (u.attributes !== undefined)
        this.put(this.states, attributesTopic(this.naming, u.entity), u.attributes);
    }
  }

  /**
   * The entities made at run time as they are now (one per watched wallet): one made before and
   * no longer among them (its key removed, its wallet deleted) has its topics emptied, which
   * removes it from Home Assistant, and is never published again.
   */
  runTime(updates: Update[]): void {
    const now = new Set(updates.map((u) => u.entity.id));
    for (const [id, e] of this.made) {
      if (now.has(id)) continue;
      this.made.delete(id);
      for (const t of [
        discoveryTopic(this.naming, e),
        stateTopic(this.naming, e),
        attributesTopic(this.naming, e),
      ])
        if (this.configs.delete(t) || this.states.delete(t)) this.outbox?.publish(t, '');
    }
    for (const u of updates) if (this.allowed(u.entity)) this.made.set(u.entity.id, u.entity);
    this.update(updates);
  }

  /**
   * Private entities made at run time, while MQTT_PRIVATE is off: their topics are emptied now
   * and on every connect, as PRIVATE_ENTITIES' are.
   */
  withhold(entities: Entity[]): void {
    if (this.opts.private) return;
    for (const e of entities.filter((x) => x.private && !this.withheld.has(x.id))) {
      this.withheld.set(e.id, e);
      for (const t of [discoveryTopic(this.naming, e), stateTopic(this.naming, e)])
        this.outbox?.publish(t, '');
    }
  }

  /** A connection is up: everything, then `online`; later changes go out as they come. */
  connected(outbox: Outbox): void {
    this.outbox = outbox;
    this.republish();
  }

  disconnected(): void {
    this.outbox = null;
  }

  /**
   * Every retained message again. Without MQTT_PRIVATE the private entities' topics are emptied
   * too, which deletes what an earlier run with it left on the broker and removes the entities
   * from Home Assistant.
   */
  republish(): void {
    const out = this.outbox;
    if (!out) return;
    if (!this.opts.private)
      for (const e of [...PRIVATE_ENTITIES, ...this.withheld.values()])
        for (const t of [
          discoveryTopic(this.naming, e),
          stateTopic(this.naming, e),
          ...(e.attributes ? [attributesTopic(this.naming, e)] : []),
        ])
          out.publish(t, '');
    for (const [topic, payload] of this.configs) out.publish(topic, payload);
    for (const [topic, payload] of this.states) out.publish(topic, payload);
    out.publish(availabilityTopic(this.naming), 'online');
  }

  /** Entities declared so far. */
  get entities(): number {
    return this.configs.size;
  }

  private allowed(e: Entity): boolean {
    return !e.private || this.opts.private;
  }

  private configOf(e: Entity): string {
    return JSON.stringify(discoveryConfig(this.naming, e));
  }

  private put(map: Map<string, string>, topic: string, payload: string): void {
    if (map.get(topic) === payload) return;
    map.set(topic, payload);
    this.outbox?.publish(topic, payload);
  }
}
