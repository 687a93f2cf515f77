// Settings: what each kind of task sends to the service, in the user's words. Every file sent
// is a copy without metadata (no location, camera, names, tags); originals are never changed.

const SENT: { kind: string; sent: string }[] = [
  { kind: 'Keywords, captions, quality, faces', sent: 'A small copy of the photo (about 300 pixels on the short side) with all metadata removed.' },
  { kind: 'Video keywords', sent: 'A copy of the clip with its location and all other container and stream metadata removed (MP4 when the original is another container).' },
  { kind: 'Speech', sent: 'The text you typed and the voice you chose.' },
  { kind: 'Lipsync', sent: 'Copies of the audio and of the video or portrait, without location, camera, names, tags or ID3 (remuxed, not re-encoded where the format allows).' },
  { kind: 'Face swap', sent: 'Copies of the donor face and of the target picture or clip, without metadata.' },
  { kind: 'Create and edit pictures', sent: 'Your prompt, and copies of the source pictures (and of a style picture) without metadata.' },
  { kind: 'Vectorize', sent: 'A copy of the picture without metadata.' },
];

export function PrivacySection() {
  return (
    <section className="card" data-testid="privacy-per-task">
      <header className="card-head">
        <h2>What is sent, per kind of task</h2>
      </header>
      <div className="card-text">
        <table className="privacy-table">
          <tbody>
            {SENT.map((r) => (
              <tr key={r.kind}>
                <th scope="row">{r.kind}</th>
                <td>{r.sent}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          Nothing that identifies a person or place is sent unless it is in the picture, sound or text itself. A task the service accepted is never sent
          again without you; cancelling reaches the service.
        </p>
      </div>
    </section>
  );
}
