/**
 * An error the person must see, announced at once by screen readers (`role="alert"`); nothing
 * when there is none.
 */
export function Alert({ message }: { message: string | null | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
