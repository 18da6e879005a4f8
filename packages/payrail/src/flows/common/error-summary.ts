// What a log line says of an error a connector or a job raised.

/** What is logged of a connector's error: its name and message, never its properties (which might hold request data). */
export function errorSummary(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message.slice(0, 300) };
  return { name: typeof error, message: 'non-Error thrown' };
}
