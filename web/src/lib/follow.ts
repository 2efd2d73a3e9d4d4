// Following the newest output, as a terminal or a chat does: a view opens at its end and stays
// there while new content arrives, as long as the reader is at the bottom; scrolling up stops the
// following (the reader is reading), scrolling back down to the end starts it again.

import { useCallback, useLayoutEffect, useRef, useState } from "react";

/** How far from the end still counts as "at the end": a wheel notch or a wrapped line. */
export const FOLLOW_SLACK_PX = 40;

export interface ScrollBox {
  scrollHeight: number;
  scrollTop: number;
  clientHeight: number;
}

/** Whether `box` is scrolled to (within `slack` pixels of) its end. */
export function atEnd(box: ScrollBox, slack = FOLLOW_SLACK_PX): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= slack;
}

export interface FollowEnd<T extends HTMLElement> {
  ref: React.RefObject<T | null>;
  following: boolean;
  onScroll: () => void;
  jump: () => void;
}

/**
 * Follows the end of the element `ref` points to whenever `content` (or `shown`, e.g. a disclosure
 * opening) changes, while the reader is at the end. `following` is false while they have scrolled
 * away; `jump` takes them back to the end and follows again.
 */
export function useFollowEnd<T extends HTMLElement>(content: unknown, shown?: unknown): FollowEnd<T> {
  const ref = useRef<T>(null);
  const follow = useRef(true);
  const [following, setFollowing] = useState(true);

  useLayoutEffect(() => {
    const element = ref.current;
    if (element && follow.current) element.scrollTop = element.scrollHeight;
  }, [content, shown]);

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    const now = atEnd(element);
    if (now !== follow.current) {
      follow.current = now;
      setFollowing(now);
    }
  }, []);

  const jump = useCallback(() => {
    const element = ref.current;
    follow.current = true;
    setFollowing(true);
    if (element) element.scrollTop = element.scrollHeight;
  }, []);

  return { ref, following, onScroll, jump };
}
