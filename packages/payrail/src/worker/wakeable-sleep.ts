// A worker loop's pause between rounds: a timer that new work (or stop) can
// cut short, so a loop sleeps long when idle yet reacts at once when woken.

export class WakeableSleep {
  private wake: (() => void) | null = null;

  /** Sleeps `ms`, or until woken; 0 or less yields one turn, so HTTP requests are served between batches. */
  async sleep(ms: number): Promise<void> {
    if (ms <= 0) {
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  /** Ends the sleep under way, if any. */
  wakeUp(): void {
    this.wake?.();
  }
}
