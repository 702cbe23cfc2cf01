import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import ProductReviews from './ProductReviews';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('displays the reviews of a product with their ratings', async () => {
  fetchMock.get('/api/products/5/reviews', [
    { id: 'r1', author: 'Mia', rating: 5, text: 'Sturdy and well made.' },
    { id: 'r2', author: 'Tom', rating: 3, text: 'Arrived a little scratched.' },
  ]);

  await act(async () => { render(<ProductReviews />); });

  expect(fetchMock.called('/api/products/5/reviews')).toBe(true);
  expect(screen.getByText('Sturdy and well made.')).toBeInTheDocument();
  expect(screen.getByText('Arrived a little scratched.')).toBeInTheDocument();
  expect(screen.getByTestId('rating-r1')).toHaveTextContent('5/5');
  expect(screen.getByTestId('rating-r2')).toHaveTextContent('3/5');
}, 10000);

test('shows an error when reviews fail to load', async () => {
  fetchMock.get('/api/products/5/reviews', 503);

  await act(async () => { render(<ProductReviews />); });

  expect(fetchMock.called('/api/products/5/reviews')).toBe(true);
  expect(screen.getByText(/failed to load reviews/i)).toBeInTheDocument();
}, 10000);
