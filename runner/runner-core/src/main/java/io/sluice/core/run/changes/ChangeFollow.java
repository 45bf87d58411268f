package io.sluice.core.run.changes;

/**
 * How long a run applies changes after its copy: up to the source's position when it began applying (a scheduled
 * run), or on until stopped ({@code --follow}), or on until it has caught up once ({@code --follow --until-lag 0}).
 *
 * @param follow      keep applying after catching up
 * @param untilCaughtUp with {@code follow}: stop once caught up with the source
 * @param restart     {@code --restart-changes}: forget the feed's position and start it again (new slot, full copy)
 */
public record ChangeFollow(boolean follow, boolean untilCaughtUp, boolean restart) {
    public static final ChangeFollow ONCE = new ChangeFollow(false, false, false);
}
