/**
 * Whether spans may carry message and tool content (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`,
 * the variable the GenAI instrumentations share): only when it says `true`, since prompts and tool
 * outputs may hold what a trace backend must not see.
 */
export function captureMessageContentFromEnv({ env }: { env: NodeJS.ProcessEnv }): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}
