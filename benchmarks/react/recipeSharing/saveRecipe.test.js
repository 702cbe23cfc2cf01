import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import SaveRecipeButton from './SaveRecipeButton';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('saves the recipe and marks the button as saved', async () => {
  fetchMock.post('/api/saved-recipes', { status: 201, body: { recipeId: 12 } });

  await act(async () => { render(<SaveRecipeButton />); });
  await act(async () => { fireEvent.click(screen.getByText('Save recipe')); });

  expect(fetchMock.calls('/api/saved-recipes').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/saved-recipes').body)).toEqual({ recipeId: 12 });
  expect(screen.getByText('Saved')).toBeInTheDocument();
  expect(screen.queryByText('Save recipe')).not.toBeInTheDocument();
}, 10000);

test('leaves the recipe unsaved when the request fails', async () => {
  fetchMock.post('/api/saved-recipes', 500);

  await act(async () => { render(<SaveRecipeButton />); });
  await act(async () => { fireEvent.click(screen.getByText('Save recipe')); });

  expect(fetchMock.calls('/api/saved-recipes').length).toBe(1);
  expect(screen.getByText('Save recipe')).toBeInTheDocument();
  expect(screen.getByText(/could not save recipe/i)).toBeInTheDocument();
}, 10000);
