import { useEffect, useState } from 'react';

export default function ProductReviews() {
  const [reviews, setReviews] = useState([]);
  const [error, setError] = useState(null);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const response = await fetch('/api/products/5/reviews');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const data = await response.json();
        if (!cancelled) setReviews(data);
      } catch (err) {
        if (!cancelled) setError('Failed to load reviews');
      }
    })();
    return () => {
      cancelled = true;
    };
  }, []);

  if (error) return <p role="alert">{error}</p>;

  return (
    <ul>
      {reviews.map((review) => (
        <li key={review.id}>
          <strong>{review.author}</strong>
          <span data-testid={`rating-${review.id}`}>{review.rating}/5</span>
          <p>{review.text}</p>
        </li>
      ))}
    </ul>
  );
}
